"""Damaged ember.save files: truncated, bit-flipped, or with header and
manifest fields changed, ember.load answers with an exception, never a
crash, and never allocates more than the file could describe.

ember.load is ember::serialize::load underneath, so this covers the C++
reader too. Each load runs in a forked child (test/fuzz/forked.py) whose
address space may grow by only LOAD_HEADROOM: a load that tried to allocate
for sizes the file does not hold fails the test instead of the machine.
"""

import collections
import io
import os
import random
import struct
import sys

import pytest

import ember

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from test.fuzz.forked import run_forked  # noqa: E402

LOAD_HEADROOM = 256 << 20
HEADER = 8 + 4 + 8  # magic, format version, manifest size
ANSWERS = {"RuntimeError", "ValueError", "TypeError", "KeyError", "UnpicklingError"}


def sample_file() -> bytes:
    base = ember.arange(24.0).reshape(4, 6)
    obj = collections.OrderedDict(
        weight=base,
        view=base[1:, ::2],  # shares the storage, non-contiguous
        ints=ember.arange(5, dtype=ember.int64),
        meta=ember.empty(3, 3, device="meta"),
        nested={"list": [1, 2.5, "x", None, (True, ember.zeros(2, dtype=ember.bfloat16))], "dtype": ember.float16},
        param=ember.nn.Parameter(ember.ones(3)),
    )
    buffer = io.BytesIO()
    ember.save(obj, buffer)
    return buffer.getvalue()


SAMPLE = sample_file()
MANIFEST_SIZE = struct.unpack_from("<Q", SAMPLE, 12)[0]


def load_outcome(data: bytes):
    return run_forked(lambda: ember.load(io.BytesIO(data)), headroom=LOAD_HEADROOM)


def assert_answered(data: bytes, what: str):
    outcome = load_outcome(data)
    assert outcome.kind in ("ok", "error"), f"{what}: {outcome}"
    if outcome.kind == "error":
        assert outcome.error_type in ANSWERS, f"{what}: {outcome}"
        assert "not enough memory" not in outcome.message, f"{what}: {outcome}"  # (MemoryError is not in ANSWERS)


def test_the_sample_loads():
    assert load_outcome(SAMPLE).kind == "ok"


@pytest.mark.parametrize("length", sorted({0, 1, 7, 8, 12, 19, 20, 21, HEADER + MANIFEST_SIZE // 2,
                                           HEADER + MANIFEST_SIZE - 1, HEADER + MANIFEST_SIZE,
                                           len(SAMPLE) - 100, len(SAMPLE) - 1}))
def test_truncated(length):
    assert_answered(SAMPLE[:length], f"truncated to {length} bytes")


@pytest.mark.parametrize("field, value", [
    ("version", 0), ("version", 2**32 - 1),
    ("manifest_size", 0), ("manifest_size", MANIFEST_SIZE + 1), ("manifest_size", 2**31),
    ("manifest_size", 2**64 - 1), ("manifest_size", MANIFEST_SIZE - 1),
])
def test_header_fields(field, value):
    data = bytearray(SAMPLE)
    if field == "version":
        struct.pack_into("<I", data, 8, value)
    else:
        struct.pack_into("<Q", data, 12, value)
    assert_answered(bytes(data), f"{field}={value}")


def _varints(region: bytes):
    """Offsets of the protobuf varints in the manifest that hold sizes, strides, offsets and ids."""
    return [i for i in range(len(region)) if region[i] < 0x80 and (i == 0 or region[i - 1] < 0x80)]


@pytest.mark.parametrize("seed", range(8))
def test_manifest_numbers_replaced(seed):
    # Every small number in the manifest (storage ids, sizes, strides,
    # offsets, byte counts, lengths) set to a hostile value, a few at a time.
    rng = random.Random(seed)
    manifest = SAMPLE[HEADER:HEADER + MANIFEST_SIZE]
    spots = _varints(manifest)
    for _ in range(40):
        data = bytearray(SAMPLE)
        for spot in rng.sample(spots, k=rng.choice([1, 1, 2, 3])):
            data[HEADER + spot] = rng.choice([0x00, 0x01, 0x7f, 0x3f, 0x40])
        assert_answered(bytes(data), f"seed {seed}")


@pytest.mark.parametrize("seed", range(8))
def test_random_byte_flips(seed):
    rng = random.Random(1000 + seed)
    for _ in range(30):
        data = bytearray(SAMPLE)
        region = rng.choice([(0, HEADER), (HEADER, HEADER + MANIFEST_SIZE), (0, len(SAMPLE))])
        for _ in range(rng.choice([1, 2, 4, 16])):
            data[rng.randrange(*region)] ^= 1 << rng.randrange(8)
        assert_answered(bytes(data), f"seed {seed}")


def test_huge_varints_in_the_manifest():
    # A size or offset field made into a 10-byte varint near 2**63 or 2**64.
    manifest = SAMPLE[HEADER:HEADER + MANIFEST_SIZE]
    for spot in _varints(manifest)[:60]:
        for huge in (b"\xff\xff\xff\xff\xff\xff\xff\xff\x7f", b"\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01"):
            body = manifest[:spot] + huge + manifest[spot + 1:]
            data = bytearray(SAMPLE[:HEADER]) + body + SAMPLE[HEADER + MANIFEST_SIZE:]
            struct.pack_into("<Q", data, 12, len(body))
            assert_answered(bytes(data), f"varint at {spot}")
