#include <aten/serialize/Serialization.h>

#include <aten/Functions.h>

#include "ember_file.pb.h"

#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace ember::serialize {

namespace {

constexpr char kMagic[8] = {'\x89', 'E', 'M', 'B', 'E', 'R', '\r', '\n'};
constexpr size_t kAlignment = 64;
constexpr size_t kHeaderSize = sizeof(kMagic) + 4 + 8;

size_t aligned(size_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

template <typename T>
void put_le(std::string& out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
}

template <typename T>
T get_le(const char* p) {
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return static_cast<T>(v);
}

ScalarType parse_dtype(const std::string& name, const std::string& file) {
  const auto t = c10::scalar_type_named(name);
  EMBER_CHECK(t.has_value(), "ember.load: {} is corrupt: unknown dtype '{}'", file, name);
  return *t;
}

// Writing: storages are numbered in order of first use.
struct Writer {
  proto::File file;
  std::unordered_map<const c10::StorageImpl*, uint64_t> storage_ids;
  std::vector<c10::Storage> storages;
  size_t data_size = 0;

  uint64_t storage_of(const Tensor& t) {
    const c10::Storage& s = t.storage();
    if (auto it = storage_ids.find(s.unsafeGetStorageImpl()); it != storage_ids.end()) return it->second;
    const uint64_t id = storages.size();
    storage_ids.emplace(s.unsafeGetStorageImpl(), id);
    storages.push_back(s);
    proto::Storage* entry = file.add_storages();
    entry->set_nbytes(t.is_meta() ? 0 : s.nbytes());
    entry->set_offset(data_size);
    entry->set_device(t.device().str());
    data_size = aligned(data_size + entry->nbytes());
    return id;
  }

  void write(const Value& v, proto::Value* out) {
    switch (v.kind) {
      case Value::Kind::None: out->set_none(true); break;
      case Value::Kind::Bool: out->set_bool_value(v.bool_value); break;
      case Value::Kind::Int: out->set_int_value(v.int_value); break;
      case Value::Kind::Float: out->set_float_value(v.float_value); break;
      case Value::Kind::String: out->set_string_value(v.string_value); break;
      case Value::Kind::Bytes: out->set_bytes_value(v.string_value); break;
      case Value::Kind::Dtype: out->set_dtype(v.string_value); break;
      case Value::Kind::Device: out->set_device(v.string_value); break;
      case Value::Kind::Tensor: {
        // Lazy conjugation/negation is applied: the file holds plain values.
        Tensor t = v.tensor;
        if (t.is_conj() || t.is_neg()) t = t.resolve_conj().resolve_neg();
        // Values that live outside any memory (a lazy tensor's, in a graph)
        // are computed and saved as the CPU tensor they are.
        if (t.numel() > 0 && !t.is_meta() && !t.unsafeGetTensorImpl()->has_storage_data())
          t = t.to(Device(DeviceType::CPU));
        proto::Tensor* pt = out->mutable_tensor();
        pt->set_storage(storage_of(t));
        pt->set_dtype(std::string(c10::python_name(t.scalar_type())));
        for (int64_t s : t.sizes()) pt->add_sizes(s);
        for (int64_t s : t.strides()) pt->add_strides(s);
        pt->set_storage_offset(t.storage_offset());
        pt->set_requires_grad(t.requires_grad());
        pt->set_kind(v.string_value.empty() ? "Tensor" : v.string_value);
        break;
      }
      case Value::Kind::List:
      case Value::Kind::Tuple: {
        proto::Sequence* seq = v.kind == Value::Kind::List ? out->mutable_list() : out->mutable_tuple();
        for (const Value& item : v.items) write(item, seq->add_items());
        break;
      }
      case Value::Kind::Dict:
      case Value::Kind::OrderedDict: {
        proto::Mapping* map = v.kind == Value::Kind::Dict ? out->mutable_dict() : out->mutable_ordered_dict();
        for (const auto& [key, value] : v.entries) {
          proto::Entry* e = map->add_entries();
          write(key, e->mutable_key());
          write(value, e->mutable_value());
        }
        break;
      }
    }
  }
};

// Reading: every check a damaged file could fail is explicit.
struct Reader {
  const std::string& name;
  const std::string& bytes;
  size_t data_start = 0;
  proto::File file;
  std::vector<Tensor> storages;  // uint8 tensors over each storage (undefined: meta)

  Tensor storage_tensor(uint64_t id) {
    EMBER_CHECK(id < static_cast<uint64_t>(file.storages_size()), "ember.load: {} is corrupt: storage {} of {}",
                name, id, file.storages_size());
    if (storages[id].defined()) return storages[id];
    const proto::Storage& s = file.storages(static_cast<int>(id));
    const uint64_t start = data_start + s.offset();
    EMBER_CHECK(start <= bytes.size() && s.nbytes() <= bytes.size() - start,
                "ember.load: {} is truncated: storage {} needs bytes {} to {} but the file has {}", name, id, start,
                start + s.nbytes(), bytes.size());
    Tensor raw = ember::empty({static_cast<int64_t>(s.nbytes())}, TensorOptions().dtype(ScalarType::Byte));
    if (s.nbytes() > 0) std::memcpy(raw.data_ptr(), bytes.data() + start, s.nbytes());
    storages[id] = raw;
    return raw;
  }

  Tensor tensor(const proto::Tensor& pt) {
    const ScalarType dtype = parse_dtype(pt.dtype(), name);
    const std::vector<int64_t> sizes(pt.sizes().begin(), pt.sizes().end());
    const std::vector<int64_t> strides(pt.strides().begin(), pt.strides().end());
    EMBER_CHECK(sizes.size() == strides.size(), "ember.load: {} is corrupt: a tensor has {} sizes but {} strides",
                name, sizes.size(), strides.size());
    EMBER_CHECK(pt.storage() < static_cast<uint64_t>(file.storages_size()), "ember.load: {} is corrupt: storage {} of {}",
                name, pt.storage(), file.storages_size());
    const proto::Storage& s = file.storages(static_cast<int>(pt.storage()));
    if (s.device() == "meta") {
      Tensor t = ember::empty_strided(sizes, strides, TensorOptions().dtype(dtype).device(Device(DeviceType::Meta)));
      if (pt.requires_grad()) t.set_requires_grad(true);
      return t;
    }
    // The tensor must lie inside its storage (the extent overflow-checked:
    // a wrapped-around one would pass the comparison).
    for (size_t i = 0; i < sizes.size(); ++i) {
      EMBER_CHECK(sizes[i] >= 0 && strides[i] >= 0, "ember.load: {} is corrupt: negative size or stride", name);
    }
    EMBER_CHECK(pt.storage_offset() >= 0, "ember.load: {} is corrupt: negative storage offset", name);
    size_t needed = 0;
    try {
      needed = c10::TensorImpl::storage_nbytes_for(sizes, strides, pt.storage_offset(), c10::elementSize(dtype));
    } catch (const c10::Error&) {
      needed = SIZE_MAX;
    }
    EMBER_CHECK(needed <= s.nbytes(),
                "ember.load: {} is corrupt: a tensor of sizes {} reaches past the end of its storage ({} bytes)",
                name, c10::str_sizes(sizes), s.nbytes());
    Tensor raw = storage_tensor(pt.storage());
    auto impl = c10::make_intrusive<c10::TensorImpl>(raw.storage(), dtype, sizes, strides, pt.storage_offset(),
                                                      nullptr);
    Tensor t(std::move(impl));
    if (pt.requires_grad()) t.set_requires_grad(true);
    return t;
  }

  Value read(const proto::Value& v, int depth) {
    EMBER_CHECK(depth < 1000, "ember.load: {} is corrupt: values nested more than 1000 deep", name);
    switch (v.kind_case()) {
      case proto::Value::kNone: return Value::none();
      case proto::Value::kBoolValue: return Value::of(v.bool_value());
      case proto::Value::kIntValue: return Value::of(static_cast<int64_t>(v.int_value()));
      case proto::Value::kFloatValue: return Value::of(v.float_value());
      case proto::Value::kStringValue: return Value::of(v.string_value());
      case proto::Value::kBytesValue: return Value::bytes(v.bytes_value());
      case proto::Value::kDtype: return Value::dtype(parse_dtype(v.dtype(), name));
      case proto::Value::kDevice: return Value::device(Device(v.device()));
      case proto::Value::kTensor: return Value::of(tensor(v.tensor()), v.tensor().kind());
      case proto::Value::kList:
      case proto::Value::kTuple: {
        const proto::Sequence& seq = v.kind_case() == proto::Value::kList ? v.list() : v.tuple();
        std::vector<Value> items;
        for (const auto& item : seq.items()) items.push_back(read(item, depth + 1));
        return v.kind_case() == proto::Value::kList ? Value::list(std::move(items)) : Value::tuple(std::move(items));
      }
      case proto::Value::kDict:
      case proto::Value::kOrderedDict: {
        const proto::Mapping& map = v.kind_case() == proto::Value::kDict ? v.dict() : v.ordered_dict();
        std::vector<std::pair<Value, Value>> entries;
        for (const auto& e : map.entries()) entries.emplace_back(read(e.key(), depth + 1), read(e.value(), depth + 1));
        return Value::dict(std::move(entries), v.kind_case() == proto::Value::kOrderedDict);
      }
      case proto::Value::KIND_NOT_SET: break;
    }
    EMBER_CHECK(false, "ember.load: {} is corrupt: a value of unknown kind (written by a newer Ember?)", name);
  }
};

}  // namespace

Value Value::of(bool v) { Value r; r.kind = Kind::Bool; r.bool_value = v; return r; }
Value Value::of(int64_t v) { Value r; r.kind = Kind::Int; r.int_value = v; return r; }
Value Value::of(double v) { Value r; r.kind = Kind::Float; r.float_value = v; return r; }
Value Value::of(std::string v) { Value r; r.kind = Kind::String; r.string_value = std::move(v); return r; }
Value Value::bytes(std::string v) { Value r; r.kind = Kind::Bytes; r.string_value = std::move(v); return r; }
Value Value::of(Tensor t, std::string kind) {
  // A TypeError, so that Python's ember.save falls back to torch's format, which holds sparse tensors.
  EMBER_CHECK_TYPE(!t.defined() || !t.unsafeGetTensorImpl()->is_sparse(),
                   "ember::serialize: Ember's file format holds strided tensors, not sparse ones; save the sparse "
                   "tensor's indices() and values() (Python's ember.save writes it in torch's format)");
  Value r;
  r.kind = Kind::Tensor;
  r.tensor = std::move(t);
  r.string_value = std::move(kind);
  return r;
}
Value Value::list(std::vector<Value> items) { Value r; r.kind = Kind::List; r.items = std::move(items); return r; }
Value Value::tuple(std::vector<Value> items) { Value r; r.kind = Kind::Tuple; r.items = std::move(items); return r; }
Value Value::dict(std::vector<std::pair<Value, Value>> entries, bool ordered) {
  Value r;
  r.kind = ordered ? Kind::OrderedDict : Kind::Dict;
  r.entries = std::move(entries);
  return r;
}
Value Value::dtype(ScalarType t) { Value r; r.kind = Kind::Dtype; r.string_value = std::string(c10::python_name(t)); return r; }
Value Value::device(Device d) { Value r; r.kind = Kind::Device; r.string_value = d.str(); return r; }

void save(const Value& root, std::ostream& out) {
  Writer w;
  w.write(root, w.file.mutable_root());
  std::string manifest;
  EMBER_CHECK(w.file.SerializeToString(&manifest), "ember.save: could not encode the manifest");
  std::string header(kMagic, sizeof(kMagic));
  put_le<uint32_t>(header, kFormatVersion);
  put_le<uint64_t>(header, manifest.size());
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(manifest.data(), static_cast<std::streamsize>(manifest.size()));
  const size_t data_start = aligned(kHeaderSize + manifest.size());
  const std::string padding(data_start - kHeaderSize - manifest.size(), '\0');
  out.write(padding.data(), static_cast<std::streamsize>(padding.size()));
  size_t written = 0;
  for (int i = 0; i < w.file.storages_size(); ++i) {
    const proto::Storage& s = w.file.storages(i);
    const std::string gap(s.offset() - written, '\0');
    out.write(gap.data(), static_cast<std::streamsize>(gap.size()));
    if (s.nbytes() > 0) out.write(static_cast<const char*>(w.storages[i].data()), static_cast<std::streamsize>(s.nbytes()));
    written = s.offset() + s.nbytes();
  }
  EMBER_CHECK(out.good(), "ember.save: writing failed");
}

void save(const Value& root, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  EMBER_CHECK(out.is_open(), "ember.save: cannot open '{}' for writing", path);
  save(root, out);
}

Value load(std::istream& in, const std::string& name) {
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  EMBER_CHECK(bytes.size() >= sizeof(kMagic) && std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) == 0,
              "ember.load: {} is not an Ember file (it does not start with Ember's magic bytes)", name);
  EMBER_CHECK(bytes.size() >= kHeaderSize, "ember.load: {} is truncated: the header is incomplete", name);
  const uint32_t version = get_le<uint32_t>(bytes.data() + sizeof(kMagic));
  EMBER_CHECK(version >= 1 && version <= kFormatVersion,
              "ember.load: {} has format version {}, but this Ember reads versions 1 to {}; it was written by a "
              "newer Ember",
              name, version, kFormatVersion);
  const uint64_t manifest_size = get_le<uint64_t>(bytes.data() + sizeof(kMagic) + 4);
  EMBER_CHECK(manifest_size <= bytes.size() - kHeaderSize,
              "ember.load: {} is truncated: the manifest needs {} bytes but only {} follow the header", name,
              manifest_size, bytes.size() - kHeaderSize);
  EMBER_CHECK(manifest_size <= static_cast<uint64_t>(INT32_MAX), "ember.load: {} is corrupt: a manifest of {} bytes",
              name, manifest_size);
  Reader r{name, bytes, 0, {}, {}};
  EMBER_CHECK(r.file.ParseFromArray(bytes.data() + kHeaderSize, static_cast<int>(manifest_size)),
              "ember.load: {} is corrupt: its manifest cannot be decoded", name);
  r.data_start = aligned(kHeaderSize + manifest_size);
  r.storages.resize(r.file.storages_size());
  return r.read(r.file.root(), 0);
}

Value load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EMBER_CHECK(in.is_open(), "ember.load: cannot open '{}'", path);
  return load(in, path);
}

void save_tensors(const std::vector<std::pair<std::string, Tensor>>& tensors, const std::string& path) {
  std::vector<std::pair<Value, Value>> entries;
  for (const auto& [key, t] : tensors) entries.emplace_back(Value::of(key), Value::of(t));
  save(Value::dict(std::move(entries), /*ordered=*/true), path);
}

std::vector<std::pair<std::string, Tensor>> load_tensors(const std::string& path) {
  const Value root = load(path);
  EMBER_CHECK(root.kind == Value::Kind::Dict || root.kind == Value::Kind::OrderedDict,
              "ember::serialize::load_tensors: {} holds no dict of tensors", path);
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& [key, value] : root.entries) {
    EMBER_CHECK(key.kind == Value::Kind::String && value.kind == Value::Kind::Tensor,
                "ember::serialize::load_tensors: {} holds a dict whose entries are not str -> Tensor", path);
    out.emplace_back(key.string_value, value.tensor);
  }
  return out;
}

}  // namespace ember::serialize
