"""Bad inputs raise the Python exception type torch raises, with a message
that says what went wrong. The messages are pinned with expecttest:

    EXPECTTEST_ACCEPT=1 python -m pytest test/python/test_errors.py

rewrites the expected strings below after a deliberate change.

Each check runs the same lambda on the ember and the torch module (when
torch is installed) and requires the same exception type from both, unless
the case names a different torch type, with the reason in a comment.
"""

import operator

import numpy as np
import pytest
from expecttest import TestCase

import ember
from ember_testing import torch

SAME = object()


class ErrorTestCase(TestCase):
    def raises(self, fn, error, torch_error=SAME):
        """The message of the `error` that fn(ember) raises. fn(torch) must
        raise `torch_error` (by default the same type; None skips torch)."""
        with self.assertRaises(error) as ctx:
            fn(ember)
        self.assertIs(type(ctx.exception), error, f"{type(ctx.exception).__name__}: {ctx.exception}")
        if torch is not None and torch_error is not None:
            with self.assertRaises(error if torch_error is SAME else torch_error):
                fn(torch)
        return str(ctx.exception)


class TestFactoryErrors(ErrorTestCase):
    def test_negative_sizes(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(-1), RuntimeError),
            """Trying to create tensor with negative dimension -1: [-1]""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.empty(2, -3), RuntimeError),
            """Trying to create tensor with negative dimension -3: [2, -3]""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.full((-1, 2), 1.0), RuntimeError),
            """Trying to create tensor with negative dimension -1: [-1, 2]""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.rand(3, -1), RuntimeError),
            """Trying to create tensor with negative dimension -1: [3, -1]""",
        )

    def test_non_integer_sizes(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2.5), TypeError),
            """zeros(): argument 'size' must be tuple of ints, but found element of type float""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.ones((2, "a")), TypeError),
            """ones(): argument 'size' must be tuple of ints, but found element of type str""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(m.tensor(2.5)), TypeError),
            """only integer tensors of a single element can be converted to an index""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.empty(2, None), TypeError),
            """empty(): argument 'size' must be tuple of ints, but found element of type NoneType""",
        )

    def test_invalid_dtype_arguments(self):
        message = self.raises(lambda m: m.zeros(2, dtype="float32"), TypeError)
        self.assertIn("incompatible function arguments", message)
        self.raises(lambda m: m.tensor([1], dtype=3), TypeError)
        self.raises(lambda m: m.arange(3, dtype=m.zeros(1)), TypeError)
        self.assertExpectedInline(
            self.raises(lambda m: m.set_default_dtype(m.int64), TypeError),
            """only floating-point types are supported as the default type""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(3).to(object()), TypeError),
            """to(): expected a dtype, device or tensor argument, got object""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(3).to(m.float32, colour=1), TypeError),
            """to() got an unexpected keyword argument 'colour'""",
        )

    def test_range_factories(self):
        self.assertExpectedInline(self.raises(lambda m: m.arange(0, 5, 0), RuntimeError), """step must be nonzero""")
        self.assertExpectedInline(
            self.raises(lambda m: m.arange(5, 0, 1), RuntimeError),
            """upper bound and larger bound inconsistent with step sign""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.arange(0, float("inf")), RuntimeError), """unsupported range: 0 -> inf"""
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.arange(3, dtype=m.complex64), NotImplementedError),
            """arange(): complex dtype complex64 is not supported""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.linspace(0, 1, -1), RuntimeError), """number of steps must be non-negative"""
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.eye(-2), RuntimeError), """n must be greater or equal to 0, got -2"""
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.eye(2, -1), RuntimeError), """m must be greater or equal to 0, got -1"""
        )

    def test_random_factories(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.randint(5, 5, (2,)), RuntimeError),
            """random_ expects 'from' to be less than 'to', but got from=5 >= to=5""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.rand(2, dtype=m.int64), NotImplementedError),
            """uniform_ is only implemented for floating point and complex tensors, got int64""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.randn(2, dtype=m.bool), NotImplementedError),
            """normal_ is only implemented for floating point and complex tensors, got bool""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.empty(3).uniform_(2, 1), RuntimeError),
            """uniform_ expects to return a [from, to) range, but found from=2 > to=1""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.empty(3).normal_(0, -1), RuntimeError),
            """normal expects std >= 0.0, but found std -1""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.randint(10), TypeError), """\
randint() missing required argument 'size' (tuple of ints)
(got (int); randint() takes one of:
 * randint(int high, tuple of ints size, *, Generator generator=None, dtype dtype=None, device device=None, Tensor out=None, bool requires_grad=False)
 * randint(int low, int high, tuple of ints size, *, Generator generator=None, dtype dtype=None, device device=None, Tensor out=None, bool requires_grad=False))"""
        )

    def test_requires_grad_on_integers(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, dtype=m.int64, requires_grad=True), RuntimeError),
            """Only Tensors of floating point and complex dtype can require gradients""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor([True]).requires_grad_(), RuntimeError),
            """Only Tensors of floating point and complex dtype can require gradients""",
        )

    def test_devices(self):
        # torch's CPU-only build raises AssertionError ("Torch not compiled
        # with CUDA enabled"); a RuntimeError is what Ember raises for every
        # unavailable backend.
        # Where the CUDA backend is built but finds no GPU, the reason is the
        # driver's own words, which differ from machine to machine.
        if not ember.cuda.is_available():
            message = self.raises(lambda m: m.zeros(2, device="cuda"), RuntimeError, torch_error=AssertionError)
            if ember._C._device_backend_built("cuda"):
                self.assertRegex(message, r"^CUDA is not available: .+")
            else:
                self.assertExpectedInline(message, """Device cuda is not available: no cuda backend is registered (Ember was built without it, or the backend's library is not loaded)""")
        self.assertExpectedInline(
            self.raises(lambda m: m.device("gpu"), RuntimeError),
            """Expected one of cpu, cuda, meta, privateuseone, lazy device type at start of device string: gpu""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.device("cuda:x"), RuntimeError), """Invalid device string: 'cuda:x'"""
        )
        # torch accepts "cpu:1" (and ignores the index); there is one CPU.
        self.assertExpectedInline(
            self.raises(lambda m: m.device("cpu:1"), RuntimeError, torch_error=None),
            """CPU device index must be -1 or zero, got 1""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2).to("cpu:1"), RuntimeError, torch_error=None),
            """CPU device index must be -1 or zero, got 1""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.device("cuda:0", 1), RuntimeError),
            """type (string) must not include an index because index was passed explicitly: cuda:0""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.Generator(device="cuda"), RuntimeError),
            """Generator: the cuda backend does not provide random number generators""",
        )


class TestTensorDataErrors(ErrorTestCase):
    def test_ragged_lists(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor([[1, 2], [3]]), ValueError),
            """expected sequence of length 2 at dim 1 (got 1)""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor([[[1], [2]], [[3], [4, 5]]]), ValueError),
            """expected sequence of length 1 at dim 2 (got 2)""",
        )
        # torch silently returns an empty (2, 0) tensor for this one.
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor([[], [1]]), ValueError, torch_error=None),
            """expected sequence of length 0 at dim 1 (got 1)""",
        )

    def test_numbers_and_sequences_mixed(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor([[1, 2], 3]), TypeError),
            """expected sequence of length 2 at dim 1 (got int)""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor([1, [2]]), TypeError),
            """expected a number at dim 1 but found a sequence of length 1""",
        )

    def test_non_numeric_data(self):
        # torch reads a string in a list as a sequence and raises
        # ValueError("too many dimensions 'str'").
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor(["a"]), TypeError, torch_error=ValueError),
            """new(): invalid data type 'str'""",
        )
        self.assertExpectedInline(self.raises(lambda m: m.tensor("abc"), TypeError), """new(): invalid data type 'str'""")
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor([1, b"x"]), TypeError),
            """new(): invalid data type 'bytes'""",
        )
        # torch raises RuntimeError("Could not infer dtype of NoneType") for
        # objects that are not numbers; a TypeError is the Python convention
        # (and torch's own choice for strings).
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor([None]), TypeError, torch_error=RuntimeError),
            """new(): invalid data type 'NoneType'""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor({1: 2}), TypeError, torch_error=RuntimeError),
            """new(): invalid data type 'dict'""",
        )

    def test_integer_overflow(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor([2**63]), ValueError), """Overflow when unpacking long"""
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor(-(2**63) - 1), ValueError), """Overflow when unpacking long"""
        )

    def test_from_numpy(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.from_numpy([1, 2]), TypeError), """expected np.ndarray (got list)"""
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.from_numpy(np.zeros(2, dtype=object)), TypeError),
            """can't convert np.ndarray of type object. The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.""",
        )
        # torch has grown uint16/32/64 tensors; Ember's only unsigned type is uint8.
        self.assertExpectedInline(
            self.raises(lambda m: m.from_numpy(np.zeros(2, dtype=np.uint16)), TypeError, torch_error=None),
            """can't convert np.ndarray of type uint16. The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.from_numpy(np.zeros(2, dtype=">f8")), ValueError),
            """given numpy array has byte order different from the native byte order. Conversion between byte orders is currently not supported.""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.from_numpy(np.arange(3)[::-1]), ValueError),
            """At least one stride in the given numpy array is negative, and tensors with negative strides are not currently supported. (You can probably work around this by making a copy of your array  with array.copy().) """,
        )

    def test_numpy(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.ones(2, requires_grad=True).numpy(), RuntimeError),
            """Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor([1j]).conj().numpy(), RuntimeError),
            """Can't call numpy() on Tensor that has conjugate bit set. Use tensor.resolve_conj().numpy() instead.""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.ones(1, dtype=m.bfloat16).numpy(), TypeError),
            """Got unsupported ScalarType BFloat16""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.ones(1, device="meta").numpy(), TypeError),
            """can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.ones(1, device="meta").tolist(), NotImplementedError),
            """Cannot copy out of meta tensor; no data!""",
        )

    def test_dlpack(self):
        def twice(m):
            capsule = m.utils.dlpack.to_dlpack(m.ones(2))
            m.from_dlpack(capsule)
            m.from_dlpack(capsule)

        self.assertExpectedInline(
            self.raises(twice, RuntimeError),
            """from_dlpack(): the capsule is not a DLPack tensor or was already consumed (each capsule can be used only once)""",
        )
        # torch takes the list for a capsule and raises RuntimeError("invalid
        # capsule"); the argument's type is what is wrong.
        self.assertExpectedInline(
            self.raises(lambda m: m.from_dlpack([1]), TypeError, torch_error=RuntimeError),
            """from_dlpack(): expected an object with a __dlpack__ method or a DLPack capsule, got list""",
        )
        # torch's __dlpack__ checks its arguments with `assert`.
        self.assertExpectedInline(
            self.raises(lambda m: m.ones(2).__dlpack__(stream=1), RuntimeError, torch_error=AssertionError),
            """stream must be None for CPU tensors""",
        )
        # torch uses BufferError, the array API's type for refused exports.
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor([1j]).conj().__dlpack__(), RuntimeError, torch_error=BufferError),
            """Can't export tensors with the conjugate bit set""",
        )


class TestViewErrors(ErrorTestCase):
    def test_view_shapes(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).view(5), RuntimeError),
            """shape '[5]' is invalid for input of size 6""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).view(4, -1), RuntimeError),
            """shape '[4, -1]' is invalid for input of size 6""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).view(-1, -1), RuntimeError), """only one dimension can be inferred"""
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).view(-2, 3), RuntimeError), """invalid shape dimension -2"""
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).reshape(7), RuntimeError),
            """shape '[7]' is invalid for input of size 6""",
        )

    def test_view_of_non_viewable_strides(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).t().view(6), RuntimeError),
            """view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(4, 4)[:, :2].view(8), RuntimeError),
            """view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.""",
        )

    def test_bad_dims(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).transpose(0, 2), IndexError),
            """Dimension out of range (expected to be in range of [-2, 1], but got 2)""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).unsqueeze(-4), IndexError),
            """Dimension out of range (expected to be in range of [-3, 2], but got -4)""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).squeeze(2), IndexError),
            """Dimension out of range (expected to be in range of [-2, 1], but got 2)""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).size(5), IndexError),
            """Dimension out of range (expected to be in range of [-2, 1], but got 5)""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).flatten(0, 5), IndexError),
            """Dimension out of range (expected to be in range of [-2, 1], but got 5)""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).flatten(1, 0), RuntimeError),
            """flatten() has invalid args: start_dim cannot come after end_dim""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3, 4).t(), RuntimeError),
            """t() expects a tensor with <= 2 dimensions, but self is 3D""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(3).mT, RuntimeError),
            """tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor(1.0).stride(0), IndexError),
            """Dimension specified as 0 but tensor has no dimensions""",
        )

    def test_permute(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).permute(0, 0), RuntimeError),
            """permute(): duplicate dims are not allowed.""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).permute(1, -2, 0), RuntimeError),
            """permute(): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 3""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).permute(0, 2), IndexError),
            """Dimension out of range (expected to be in range of [-2, 1], but got 2)""",
        )

    def test_expand(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).expand(4, 3), RuntimeError),
            """The expanded size of the tensor (4) must match the existing size (2) at non-singleton dimension 0.  Target sizes: [4, 3].  Tensor sizes: [2, 3]""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).expand(3), RuntimeError),
            """expand(size=[3]): the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(3).expand(-1, 3), RuntimeError),
            """The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(1).expand(-2), RuntimeError),
            """Trying to create tensor with negative dimension -2: [-2]""",
        )

    def test_narrow_select_unfold(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(5).narrow(0, 6, 1), IndexError),
            """start out of range (expected to be in range of [-5, 5], but got 6)""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(5).narrow(0, 2, 4), RuntimeError),
            """start (2) + length (4) exceeds dimension size (5).""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(5).narrow(0, 0, -1), RuntimeError),
            """narrow(): length must be non-negative.""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3).select(1, 3), IndexError),
            """select(): index 3 out of range for tensor of size [2, 3] at dimension 1""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor(1.0).select(0, 0), IndexError),
            """select() cannot be applied to a 0-dim tensor.""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(3).unfold(0, 4, 1), RuntimeError),
            """maximum size for tensor at dimension 0 is 3 but size is 4""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(3).unfold(0, 2, 0), RuntimeError), """step is 0 but must be > 0"""
        )

    def test_as_strided(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(4).as_strided((3,), (2,)), RuntimeError),
            """setStorage: sizes [3], strides [2], storage offset 0, and itemsize 4 requiring a storage size of 20 are out of bounds for storage of size 16""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(4).as_strided((2,), (-1,)), RuntimeError),
            """as_strided: Negative strides are not supported at the moment, got strides: [-1]""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(4).as_strided((2, 2), (1,)), RuntimeError),
            """mismatch in length of strides and shape""",
        )


class TestIndexingErrors(ErrorTestCase):
    def test_out_of_range(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(3)[3], IndexError), """index 3 is out of bounds for dimension 0 with size 3"""
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(3)[-4], IndexError),
            """index -4 is out of bounds for dimension 0 with size 3""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3)[:, 5], IndexError),
            """index 5 is out of bounds for dimension 1 with size 3""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3)[None, 1, ..., 3], IndexError),
            """index 3 is out of bounds for dimension 1 with size 3""",
        )

        def store(m):
            m.zeros(3)[3] = 1

        self.assertExpectedInline(
            self.raises(store, IndexError), """index 3 is out of bounds for dimension 0 with size 3"""
        )

    def test_too_many_indices(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2, 3)[0, 0, 0], IndexError), """too many indices for tensor of dimension 2"""
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.tensor(5)[0], IndexError), """too many indices for tensor of dimension 0"""
        )
        # torch accepts several ellipses; NumPy raises the same IndexError.
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(2)[..., 0, ...], IndexError, torch_error=None),
            """an index can only have a single ellipsis ('...')""",
        )

    @pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")  # torch, for x["a"]
    def test_bad_index_types(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(3)[1.5], IndexError),
            """only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got float)""",
        )
        # torch tries to make a tensor of the string and raises TypeError.
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(3)["a"], IndexError, torch_error=TypeError),
            """only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got str)""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(3)[[0, 5]], IndexError),
            """index 5 is out of bounds for dimension 0 with size 3""",
        )

    def test_slice_steps(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(3)[::-1], ValueError), """step must be greater than zero"""
        )
        self.assertExpectedInline(self.raises(lambda m: m.zeros(3)[::0], ValueError), """slice step cannot be zero""")

    def test_bad_values(self):
        def assign(value):
            def f(m):
                m.zeros(2, 3)[0] = value

            return f

        self.assertExpectedInline(
            self.raises(assign("abc"), TypeError), """can't assign a str to a tensor"""
        )
        self.assertExpectedInline(
            self.raises(assign(None), TypeError), """can't assign a NoneType to a tensor"""
        )
        self.assertExpectedInline(
            self.raises(assign(object()), TypeError), """can't assign a object to a tensor"""
        )

        def wrong_shape(m):
            m.zeros(2, 3)[0] = m.ones(4)

        self.assertExpectedInline(
            self.raises(wrong_shape, RuntimeError),
            """copy_: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0""",
        )

        def into_expanded(m):
            m.zeros(1).expand(3)[...] = 1

        self.assertExpectedInline(
            self.raises(into_expanded, RuntimeError),
            """unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.""",
        )


class TestConversionErrors(ErrorTestCase):
    def test_copy(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(3).copy_(m.zeros(2, 3)), RuntimeError),
            """output with shape [3] doesn't match the broadcast shape [2, 3]""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(3).copy_(m.zeros(3, device="meta")), NotImplementedError),
            """Cannot copy out of meta tensor; no data!""",
        )

    def test_item_and_python_numbers(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(3).item(), RuntimeError),
            """a Tensor with 3 elements cannot be converted to Scalar""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.zeros(0).item(), RuntimeError),
            """a Tensor with 0 elements cannot be converted to Scalar""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: bool(m.zeros(2)), RuntimeError),
            """Boolean value of Tensor with more than one value is ambiguous""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: bool(m.zeros(0)), RuntimeError),
            """Boolean value of Tensor with no values is ambiguous""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: int(m.zeros(2)), ValueError),
            """only one element tensors can be converted to Python scalars""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: float(m.tensor(1 + 1j)), RuntimeError),
            """value cannot be converted to a real number: its imaginary part is not zero""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: int(m.tensor(float("nan"))), ValueError),
            """cannot convert float NaN to integer""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: operator.index(m.tensor(1.0)), TypeError),
            """only integer tensors of a single element can be converted to an index""",
        )
        self.assertExpectedInline(
            self.raises(lambda m: operator.index(m.tensor([1, 2])), TypeError),
            """only integer tensors of a single element can be converted to an index""",
        )
        self.assertExpectedInline(self.raises(lambda m: len(m.tensor(1)), TypeError), """len() of a 0-d tensor""")
        self.assertExpectedInline(
            self.raises(lambda m: iter(m.tensor(1)), TypeError), """iteration over a 0-d tensor"""
        )
        self.assertExpectedInline(
            self.raises(lambda m: m.empty((), device="meta").item(), RuntimeError),
            """Tensor.item() cannot be called on meta tensors""",
        )

    def test_size(self):
        self.assertExpectedInline(
            self.raises(lambda m: m.Size(["a"]), TypeError),
            """ember.Size() takes an iterable of 'int' (item is of type 'str')""",
        )

    def test_grad_assignment(self):
        def wrong_size(m):
            m.zeros(3, requires_grad=True).grad = m.zeros(2)

        self.assertExpectedInline(
            self.raises(wrong_size, RuntimeError), """attempting to assign a gradient of size '[2]' to a tensor of size '[3]'. Please ensure that the gradient and the tensor are the same size"""
        )

        def wrong_dtype(m):
            m.zeros(3, requires_grad=True).grad = m.zeros(3, dtype=m.float64)

        self.assertExpectedInline(
            self.raises(wrong_dtype, RuntimeError), """attempting to assign a gradient with dtype 'float64' to a tensor with dtype 'float32'. Please ensure that the gradient and the tensor have the same dtype"""
        )


def test_exception_hierarchy():
    # Ember's error classes map to Python's; NotImplementedError is a
    # RuntimeError in Python too, so `except RuntimeError` still catches it.
    assert issubclass(NotImplementedError, RuntimeError)
    with pytest.raises(RuntimeError):
        ember.rand(1, dtype=ember.int32)


class TestSelectionErrors(ErrorTestCase):
    def test_sorted_index_at_positions_are_checked(self):
        """Ember's internal selection op (kthvalue/median's): positions outside the slice, empty slices included,
        raise instead of reading past it or returning uninitialized indices."""
        for x, position in ((ember.randn(3, 4), ember.tensor([[4], [0], [1]])),
                            (ember.randn(3, 0), ember.zeros(3, 1, dtype=ember.long))):
            with self.assertRaisesRegex(IndexError, "out of range for a slice of"):
                ember._sorted_index_at(x, 1, position)
        with self.assertRaisesRegex(RuntimeError, "position must be a long tensor of shape"):
            ember._sorted_index_at(ember.randn(3, 4), 1, ember.zeros(2, 1, dtype=ember.long))
        self.assertExpectedInline(self.raises(lambda m: m.kthvalue(m.tensor([3.0, 1.0]), 3), RuntimeError),
                                  """kthvalue(): selected number k out of range for dimension 0""")
