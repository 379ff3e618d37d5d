// Ember's file format from C++: round trips, shared storages, and the errors
// a damaged file gives.

#include <aten/ember.h>

#include <gtest/gtest.h>

#include <sstream>

namespace ember {
namespace {

using serialize::Value;

std::string error_of(const std::string& bytes) {
  try {
    std::istringstream in(bytes);
    serialize::load(in, "f.ember");
  } catch (const c10::Error& e) {
    return e.what();
  }
  return "";
}

std::string saved(const Value& v) {
  std::ostringstream out;
  serialize::save(v, out);
  return out.str();
}

TEST(Serialization, RoundTripKeepsValuesAndSharing) {
  Tensor base = arange(12, TensorOptions(ScalarType::Double)).view({3, 4});
  Tensor column = base.select(1, 1);
  Value root = Value::dict({{Value::of(std::string("base")), Value::of(base)},
                            {Value::of(std::string("column")), Value::of(column)},
                            {Value::of(std::string("n")), Value::of(int64_t{7})},
                            {Value::of(std::string("list")), Value::list({Value::of(1.5), Value::none()})}},
                           /*ordered=*/true);
  std::istringstream in(saved(root));
  Value back = serialize::load(in, "<bytes>");
  ASSERT_EQ(back.kind, Value::Kind::OrderedDict);
  ASSERT_EQ(back.entries.size(), 4u);
  Tensor b = back.entries[0].second.tensor;
  Tensor c = back.entries[1].second.tensor;
  EXPECT_TRUE(ember::equal(b, base));
  EXPECT_EQ(c.strides(), column.strides());
  EXPECT_TRUE(b.is_alias_of(c));  // one storage, written once
  c.fill_(-1);
  EXPECT_EQ(b[2][1].item<double>(), -1);
  EXPECT_EQ(back.entries[2].second.int_value, 7);
  EXPECT_EQ(back.entries[3].second.items[0].float_value, 1.5);
  EXPECT_EQ(back.entries[3].second.items[1].kind, Value::Kind::None);
}

TEST(Serialization, DamagedFilesSayWhatIsWrong) {
  const std::string good = saved(Value::of(ones({4})));
  EXPECT_NE(error_of("not an ember file").find("is not an Ember file"), std::string::npos);
  EXPECT_NE(error_of(good.substr(0, 12)).find("truncated"), std::string::npos);
  EXPECT_NE(error_of(good.substr(0, good.size() - 3)).find("is truncated: storage 0"), std::string::npos);
  std::string newer = good;
  newer[8] = 9;  // format version
  EXPECT_NE(error_of(newer).find("format version 9"), std::string::npos);
}

}  // namespace
}  // namespace ember
