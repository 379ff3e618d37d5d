// sum and mean on CUDA. Reducing the leading dims of a contiguous tensor sums
// down the columns of a [rows, cols] view, one thread per column. Any other
// reduction moves the reduced dims last and makes them dense, then sums the
// rows of an [outer, inner] matrix: one block per row (or per piece of a long
// row, summed again in a second pass), threads striding over the row, then a
// tree in shared memory.

#include <aten/Functions.h>
#include <aten/generated/NativeFunctions.h>
#include <aten/native/ReduceUtils.h>
#include <c10/core/DeviceHooks.h>
#include <aten/native/cuda/DtypeVisit.cuh>
#include <aten/native/cuda/Loops.cuh>

#include <algorithm>
#include <numeric>
#include <type_traits>

namespace ember::native {

namespace {

constexpr int kThreads = 256;
// Rows longer than this are summed in pieces of this length first.
constexpr int64_t kPiece = 16384;

template <typename T>
using acc_t = std::conditional_t<std::is_floating_point_v<T>, T, int64_t>;

// out[b] = sum of piece (b % pieces) of row (b / pieces).
template <typename T, typename A>
__global__ void sum_rows_kernel(const T* in, A* out, int64_t inner, int64_t pieces, int64_t piece) {
  __shared__ A partial[kThreads];
  const int64_t row = blockIdx.x / pieces, p = blockIdx.x % pieces;
  const int64_t begin = p * piece, end = begin + piece < inner ? begin + piece : inner;
  const T* data = in + row * inner;
  A acc = 0;
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) acc += static_cast<A>(data[i]);
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (static_cast<int>(threadIdx.x) < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// Sums the rows of a dense [outer, inner] buffer of T into `out` ([outer] of A).
template <typename T, typename A>
void sum_rows(const T* in, A* out, int64_t outer, int64_t inner, const Device& device) {
  if (outer == 0) return;
  const int64_t pieces = inner > kPiece ? (inner + kPiece - 1) / kPiece : 1;
  EMBER_CHECK(outer * pieces < (int64_t{1} << 31), "sum: {} rows are too many for one CUDA launch", outer * pieces);
  if (pieces == 1) {
    sum_rows_kernel<T, A><<<static_cast<unsigned>(outer), kThreads, 0, cuda::current_stream()>>>(in, out, inner, 1,
                                                                                                  inner);
    cuda::check_launch("sum_rows_kernel");
    return;
  }
  const Tensor scratch = ember::empty({outer * pieces}, c10::cpp_to_scalar_type<A>, device);
  A* partial = static_cast<A*>(scratch.data_ptr());
  sum_rows_kernel<T, A><<<static_cast<unsigned>(outer * pieces), kThreads, 0, cuda::current_stream()>>>(
      in, partial, inner, pieces, kPiece);
  cuda::check_launch("sum_rows_kernel");
  sum_rows<A, A>(partial, out, outer, pieces, device);
}

// out[y * cols + c] = the sum of column c over the rows of chunk y. Adjacent
// threads read adjacent columns, so every row is read coalesced.
template <typename T, typename A>
__global__ void sum_columns_kernel(const T* in, A* out, int64_t rows, int64_t cols, int64_t rows_per_chunk) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const int64_t begin = blockIdx.y * rows_per_chunk;
  const int64_t end = begin + rows_per_chunk < rows ? begin + rows_per_chunk : rows;
  A acc = 0;
  for (int64_t r = begin; r < end; ++r) acc += static_cast<A>(in[r * cols + c]);
  out[blockIdx.y * cols + c] = acc;
}

// Sums the columns of a dense [rows, cols] buffer of T into `out` ([cols] of A):
// the reduction over leading dims (sum(0) of a matrix) without a transpose.
template <typename T, typename A>
void sum_columns(const T* in, A* out, int64_t rows, int64_t cols, const Device& device) {
  if (cols == 0) return;
  // Enough threads to fill the GPU: split the rows into chunks when the
  // columns alone are too few, then sum the chunks' partial rows again.
  constexpr int64_t kWantThreads = int64_t{1} << 18;
  int64_t chunks = std::max<int64_t>(1, std::min<int64_t>({(kWantThreads + cols - 1) / cols, rows / 32, 1024}));
  const int64_t rows_per_chunk = (rows + chunks - 1) / chunks;
  chunks = (rows + rows_per_chunk - 1) / rows_per_chunk;
  const dim3 grid(static_cast<unsigned>((cols + kThreads - 1) / kThreads), static_cast<unsigned>(chunks));
  EMBER_CHECK(grid.x < (1u << 31), "sum: {} columns are too many for one CUDA launch", cols);
  if (chunks == 1) {
    sum_columns_kernel<T, A><<<grid, kThreads, 0, cuda::current_stream()>>>(in, out, rows, cols, rows);
    cuda::check_launch("sum_columns_kernel");
    return;
  }
  const Tensor scratch = ember::empty({chunks * cols}, c10::cpp_to_scalar_type<A>, device);
  A* partial = static_cast<A*>(scratch.data_ptr());
  sum_columns_kernel<T, A><<<grid, kThreads, 0, cuda::current_stream()>>>(in, partial, rows, cols, rows_per_chunk);
  cuda::check_launch("sum_columns_kernel");
  sum_columns<A, A>(partial, out, chunks, cols, device);
}

// Whether the reduced dims of a contiguous tensor are exactly its leading ones.
bool reduces_leading_dims(const Tensor& self, const std::vector<bool>& mask) {
  if (!self.is_contiguous() || mask.empty() || !mask.front() || mask.back()) return false;
  size_t d = 0;
  while (d < mask.size() && mask[d]) ++d;
  while (d < mask.size() && !mask[d]) ++d;
  return d == mask.size();
}

}  // namespace

Tensor sum_cuda(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  const ScalarType t = dtype.value_or(integer_to_long(self.dtype()));
  const std::vector<bool> mask = reduced_mask(self, dim, "sum");
  std::vector<int64_t> perm, kept_shape, out_shape;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (mask[d]) continue;
    perm.push_back(d);
    kept_shape.push_back(self.size(d));
    outer *= self.size(d);
  }
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (mask[d]) {
      perm.push_back(d);
      inner *= self.size(d);
    }
    if (!mask[d] || keepdim) out_shape.push_back(mask[d] ? 1 : self.size(d));
  }
  c10::DeviceGuard guard(self.device());
  // Leading dims of a contiguous tensor reduce down the columns in place;
  // anything else is first made into dense rows (the CUDA copy converts).
  const bool columns = reduces_leading_dims(self, mask);
  const Tensor input = columns ? self.to(t) : self.permute(perm).to(t).contiguous();
  Tensor result = ember::empty({outer}, t, self.device());
  EMBER_CUDA_DISPATCH_NUMBERS(t, "sum", [&] {
    using T = scalar_t;
    using A = acc_t<T>;
    const T* in = static_cast<const T*>(input.data_ptr());
    // Narrow integer results (sum(dtype=int32)) accumulate in int64 first.
    const Tensor wide = std::is_same_v<A, T> ? result : ember::empty({outer}, ScalarType::Long, self.device());
    A* out = static_cast<A*>(wide.data_ptr());
    if (inner == 0) {
      wide.zero_();
    } else if (columns) {
      sum_columns<T, A>(in, out, inner, outer, self.device());
    } else {
      sum_rows<T, A>(in, out, outer, inner, self.device());
    }
    if (!wide.is_same(result)) result.copy_(wide);
  });
  return result.view(out_shape);
}

Tensor mean_cuda(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  const ScalarType t = dtype.value_or(self.dtype());
  EMBER_CHECK(c10::isFloatingType(t) || c10::isComplexType(t),
              "mean(): could not infer output dtype. {} dtype must be either a floating point or complex dtype. "
              "Got: {}",
              dtype ? "Optional" : "Input", c10::toString(t));
  const std::vector<bool> mask = reduced_mask(self, dim, "mean");
  int64_t n = 1;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (mask[d]) n *= self.size(d);
  Tensor total = sum_cuda(self, dim, keepdim, t);
  return total.div_(static_cast<double>(n));
}

}  // namespace ember::native
