// einsum and tensordot, composed from permute/reshape/bmm so that autograd
// and every backend come for free.
//
// einsum puts every operand on one common list of labels (letters, then the
// ellipsis' dims), size 1 where an operand lacks a label, takes diagonals for
// labels repeated within an operand, sums away early the labels that only
// one operand has and nothing later needs, and contracts the operands left
// to right, each pair as one batched matrix product.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace ember::native {

namespace {

constexpr int kLetters = 52;  // a-z then A-Z; ellipsis dims take the labels after them

std::string label_name(int label) {
  if (label < 26) return std::string(1, static_cast<char>('a' + label));
  if (label < kLetters) return std::string(1, static_cast<char>('A' + label - 26));
  return "...";
}

int letter_label(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

// One term of the equation: its labels, with -1 standing for the ellipsis.
std::vector<int> parse_term(std::string_view term, bool& has_ellipsis) {
  std::vector<int> labels;
  has_ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    const char c = term[i];
    if (c == ' ') continue;
    if (c == '.') {
      EMBER_CHECK(!has_ellipsis && term.substr(i, 3) == "...",
                  "einsum(): found '.' that is not part of any ellipsis, or more than one ellipsis in a term");
      has_ellipsis = true;
      labels.push_back(-1);
      i += 2;
      continue;
    }
    EMBER_CHECK(letter_label(c) >= 0, "einsum(): invalid subscript given at index {} in the equation string, "
                                      "subscripts must be in [a-zA-Z]", i);
    labels.push_back(letter_label(c));
  }
  return labels;
}

// Sums `t` (laid out on all `n` labels) over the labels in `drop`, keeping them as size-1 dims.
Tensor sum_labels(const Tensor& t, const std::vector<bool>& drop) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (drop[d] && t.size(d) != 1) dims.push_back(d);
  }
  return dims.empty() ? t : t.sum(dims, /*keepdim=*/true);
}

// The product of a and b (both on all labels) summed over the labels in `sum`,
// as one bmm: labels both have are batch (kept) or contracted (summed).
Tensor sum_product(const Tensor& a, const Tensor& b, const std::vector<bool>& sum) {
  const int64_t n = a.dim();
  std::vector<int64_t> batch, left, right, contracted;
  for (int64_t d = 0; d < n; ++d) {
    const bool in_a = a.size(d) != 1, in_b = b.size(d) != 1;
    if (in_a && in_b) {
      (sum[d] ? contracted : batch).push_back(d);
    } else if (in_a) {
      left.push_back(d);
    } else if (in_b) {
      right.push_back(d);
    }
  }
  auto product = [&](const std::vector<int64_t>& dims, const Tensor& t) {
    int64_t p = 1;
    for (int64_t d : dims) p *= t.size(d);
    return p;
  };
  const int64_t B = product(batch, a), L = product(left, a), K = product(contracted, a), R = product(right, b);
  auto order = [](std::initializer_list<const std::vector<int64_t>*> parts, int64_t dims) {
    std::vector<int64_t> perm;
    for (const auto* part : parts) perm.insert(perm.end(), part->begin(), part->end());
    for (int64_t d = 0; d < dims; ++d) {
      if (std::find(perm.begin(), perm.end(), d) == perm.end()) perm.push_back(d);  // size-1 dims last
    }
    return perm;
  };
  const Tensor lhs = a.permute(order({&batch, &left, &contracted}, n)).reshape({B, L, K});
  const Tensor rhs = b.permute(order({&batch, &contracted, &right}, n)).reshape({B, K, R});
  Tensor out = ember::bmm(lhs, rhs);
  // Back on all labels: batch, left and right dims at their places, size 1 elsewhere.
  std::vector<int64_t> shape(n, 1);
  for (int64_t d : batch) shape[d] = a.size(d);
  for (int64_t d : left) shape[d] = a.size(d);
  for (int64_t d : right) shape[d] = b.size(d);
  std::vector<int64_t> grouped;  // the sizes in bmm's order
  for (const auto* part : {&batch, &left, &right}) {
    for (int64_t d : *part) grouped.push_back(shape[d]);
  }
  const std::vector<int64_t> perm = order({&batch, &left, &right}, n);
  std::vector<int64_t> with_ones = grouped;
  with_ones.resize(n, 1);
  std::vector<int64_t> inverse(n);
  for (int64_t i = 0; i < n; ++i) inverse[perm[i]] = i;
  return out.reshape(with_ones).permute(inverse);
}

}  // namespace

Tensor einsum(std::string_view equation, c10::ArrayRef<Tensor> operands, std::optional<IntArrayRef> path) {
  (void)path;  // a contraction order hint; operands are contracted left to right
  EMBER_CHECK(!operands.empty(), "einsum(): must provide at least one operand");
  for (const Tensor& t : operands) {
    EMBER_CHECK(t.scalar_type() == operands[0].scalar_type() && t.device() == operands[0].device(),
                "einsum(): expected all operands to have the same dtype and device, got {} on {} and {} on {}",
                c10::toString(operands[0].scalar_type()), operands[0].device().str(), c10::toString(t.scalar_type()),
                t.device().str());
  }
  EMBER_CHECK_NOT_IMPLEMENTED(operands.size() == 1 || operands[0].scalar_type() != ScalarType::Bool,
                              "einsum(): products of 'Bool' operands are not implemented");
  const size_t arrow = equation.find("->");
  const std::string_view lhs = equation.substr(0, arrow);
  std::vector<std::vector<int>> terms;
  std::vector<bool> ellipsis;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    bool has = false;
    terms.push_back(parse_term(lhs.substr(start, comma == std::string_view::npos ? lhs.size() - start
                                                                                 : comma - start), has));
    ellipsis.push_back(has);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  EMBER_CHECK(terms.size() == operands.size(), "einsum(): the equation specifies {} operands but {} were provided",
              terms.size(), operands.size());
  // How many dims the ellipsis stands for: the most any operand gives it.
  int64_t ellipsis_dims = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const int64_t named = static_cast<int64_t>(terms[i].size()) - (ellipsis[i] ? 1 : 0);
    const int64_t dims = operands[i].dim();
    EMBER_CHECK(ellipsis[i] ? dims >= named : dims == named,
                "einsum(): the number of subscripts in the equation ({}) {} the number of dimensions ({}) for "
                "operand {}{}", named, ellipsis[i] ? "is more than" : "does not match", dims, i,
                ellipsis[i] ? "" : " and no ellipsis was given");
    if (ellipsis[i]) ellipsis_dims = std::max(ellipsis_dims, dims - named);
  }
  const int n = kLetters + static_cast<int>(ellipsis_dims);

  // Output labels: given, or the ellipsis then the letters used once, in order.
  std::vector<int> output;
  std::array<int, kLetters> uses{};
  for (const auto& term : terms) {
    for (int l : term) {
      if (l >= 0) ++uses[l];
    }
  }
  const bool any_ellipsis = std::find(ellipsis.begin(), ellipsis.end(), true) != ellipsis.end();
  if (arrow != std::string_view::npos) {
    bool has = false;
    const std::vector<int> out_term = parse_term(equation.substr(arrow + 2), has);
    EMBER_CHECK(!has || any_ellipsis, "einsum(): ellipsis in the output but not in any input");
    std::array<bool, kLetters> seen{};
    for (int l : out_term) {
      if (l < 0) {
        for (int e = 0; e < ellipsis_dims; ++e) output.push_back(kLetters + e);
        continue;
      }
      EMBER_CHECK(uses[l] > 0, "einsum(): output subscript {} does not appear in the equation for any input operand",
                  label_name(l));
      EMBER_CHECK(!seen[l], "einsum(): output subscript {} appears more than once in the output", label_name(l));
      seen[l] = true;
      output.push_back(l);
    }
  } else {
    for (int e = 0; e < ellipsis_dims; ++e) output.push_back(kLetters + e);
    for (int l = 0; l < kLetters; ++l) {
      if (uses[l] == 1) output.push_back(l);
    }
  }

  // Each operand on all n labels (diagonals taken for repeated labels).
  std::vector<Tensor> aligned;
  std::vector<int64_t> label_size(n, 1);
  for (size_t i = 0; i < operands.size(); ++i) {
    std::vector<int> labels;  // one per dim of operands[i]
    const int64_t named = static_cast<int64_t>(terms[i].size()) - (ellipsis[i] ? 1 : 0);
    const int64_t covered = operands[i].dim() - named;
    for (int l : terms[i]) {
      if (l >= 0) {
        labels.push_back(l);
      } else {
        for (int64_t e = ellipsis_dims - covered; e < ellipsis_dims; ++e) labels.push_back(kLetters + e);
      }
    }
    Tensor t = operands[i];
    // A label repeated within the operand: keep its diagonal.
    for (size_t a = 0; a < labels.size(); ++a) {
      for (size_t b = a + 1; b < labels.size();) {
        if (labels[b] != labels[a]) {
          ++b;
          continue;
        }
        EMBER_CHECK(t.size(a) == t.size(b), "einsum(): subscript {} is repeated for operand {} but the sizes don't "
                                            "match, {} != {}", label_name(labels[a]), i, t.size(a), t.size(b));
        std::vector<int64_t> sizes = t.sizes().vec(), strides = t.strides().vec();
        strides[a] += strides[b];
        sizes.erase(sizes.begin() + static_cast<int64_t>(b));
        strides.erase(strides.begin() + static_cast<int64_t>(b));
        t = t.as_strided(sizes, strides, t.storage_offset());
        labels.erase(labels.begin() + static_cast<int64_t>(b));
      }
    }
    std::vector<int64_t> perm(labels.size()), shape(n, 1);
    std::vector<int> order(labels.size());
    for (size_t d = 0; d < labels.size(); ++d) order[d] = static_cast<int>(d);
    std::sort(order.begin(), order.end(), [&](int x, int y) { return labels[x] < labels[y]; });
    for (size_t d = 0; d < order.size(); ++d) {
      perm[d] = order[d];
      const int l = labels[order[d]];
      const int64_t size = t.size(order[d]);
      shape[l] = size;
      EMBER_CHECK(size == 1 || label_size[l] == 1 || label_size[l] == size,
                  "einsum(): operands do not broadcast: subscript {} has size {} for operand {} but {} before",
                  label_name(l), size, i, label_size[l]);
      if (size != 1) label_size[l] = size;
    }
    aligned.push_back(t.permute(perm).reshape(shape));
  }

  std::vector<bool> in_output(n, false);
  for (int l : output) in_output[l] = true;
  // needed_after[i]: labels that output or operands after i use.
  std::vector<std::vector<bool>> needed_after(aligned.size(), in_output);
  for (size_t i = aligned.size(); i-- > 1;) {
    needed_after[i - 1] = needed_after[i];
    for (int l = 0; l < n; ++l) {
      if (aligned[i].size(l) != 1) needed_after[i - 1][l] = true;
    }
  }
  auto not_needed = [&](const std::vector<bool>& needed, const Tensor& other) {
    std::vector<bool> drop(n);
    for (int l = 0; l < n; ++l) drop[l] = !needed[l] && (!other.defined() || other.size(l) == 1);
    return drop;
  };
  Tensor result = sum_labels(aligned[0], not_needed(needed_after[0], aligned.size() > 1 ? aligned[1] : Tensor()));
  for (size_t i = 1; i < aligned.size(); ++i) {
    const Tensor next = sum_labels(aligned[i], not_needed(needed_after[i], result));
    std::vector<bool> contract(n);
    for (int l = 0; l < n; ++l) contract[l] = !needed_after[i][l];
    result = sum_product(result, next, contract);
  }
  result = sum_labels(result, not_needed(in_output, Tensor()));
  // Output order, dropping the other (size-1) label dims.
  std::vector<int64_t> perm(output.begin(), output.end()), out_shape;
  for (int l = 0; l < n; ++l) {
    if (!in_output[l]) perm.push_back(l);
  }
  for (int l : output) out_shape.push_back(result.size(l));
  return result.permute(perm).reshape(out_shape);
}

Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self, IntArrayRef dims_other) {
  EMBER_CHECK(self.scalar_type() == other.scalar_type() && self.device() == other.device(),
              "tensordot: expected both tensors to have the same dtype and device, got {} on {} and {} on {}",
              c10::toString(self.scalar_type()), self.device().str(), c10::toString(other.scalar_type()),
              other.device().str());
  EMBER_CHECK_NOT_IMPLEMENTED(self.scalar_type() != ScalarType::Bool, "tensordot: 'Bool' tensors are not "
                                                                      "implemented");
  EMBER_CHECK(dims_self.size() == dims_other.size(), "tensordot: both dimension lists should have same length, "
                                                     "got {} and {}", dims_self.size(), dims_other.size());
  std::vector<bool> contracted_self(self.dim(), false), contracted_other(other.dim(), false);
  int64_t k = 1;
  std::vector<int64_t> perm_self, perm_other;
  for (size_t i = 0; i < dims_self.size(); ++i) {
    const int64_t a = c10::maybe_wrap_dim(dims_self[i], self.dim()), b = c10::maybe_wrap_dim(dims_other[i], other.dim());
    EMBER_CHECK(!contracted_self[a] && !contracted_other[b], "tensordot: dim {} appears multiple times in the list "
                                                             "of dims", contracted_self[a] ? a : b);
    EMBER_CHECK(self.size(a) == other.size(b), "tensordot: contracted dimensions need to match, but first has size "
                                               "{} in dim {} and second has size {} in dim {}", self.size(a), a,
                other.size(b), b);
    contracted_self[a] = contracted_other[b] = true;
    k *= self.size(a);
  }
  std::vector<int64_t> free_shape, contracted_dims_self(dims_self.size()), contracted_dims_other(dims_other.size());
  for (size_t i = 0; i < dims_self.size(); ++i) {
    contracted_dims_self[i] = c10::maybe_wrap_dim(dims_self[i], self.dim());
    contracted_dims_other[i] = c10::maybe_wrap_dim(dims_other[i], other.dim());
  }
  int64_t m = 1, n = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!contracted_self[d]) perm_self.push_back(d), free_shape.push_back(self.size(d)), m *= self.size(d);
  }
  perm_self.insert(perm_self.end(), contracted_dims_self.begin(), contracted_dims_self.end());
  perm_other = contracted_dims_other;
  for (int64_t d = 0; d < other.dim(); ++d) {
    if (!contracted_other[d]) perm_other.push_back(d), free_shape.push_back(other.size(d)), n *= other.size(d);
  }
  const Tensor a = self.permute(perm_self).reshape({m, k});
  const Tensor b = other.permute(perm_other).reshape({k, n});
  return ember::mm(a, b).reshape(free_shape);
}

}  // namespace ember::native
