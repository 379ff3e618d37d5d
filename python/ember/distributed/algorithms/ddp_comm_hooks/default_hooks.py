"""The standard DDP communication hooks: hook(state, bucket) -> Future of the bucket's averaged gradients.

``state`` is the process group to reduce over (None: the default group). allreduce_hook is what DDP does
without a hook; the compress hooks all-reduce the bucket in float16 or bfloat16 (half the bytes on the
wire, the sum rounded to that precision) and write the averages back into the bucket's float32 buffer.
"""

import ember
import ember.distributed as dist

__all__ = ["allreduce_hook", "fp16_compress_hook", "bf16_compress_hook"]


def allreduce_hook(process_group, bucket):
    """All-reduces the bucket's gradients and divides by the group's size."""
    group = process_group
    tensor = bucket.buffer().div_(dist.get_world_size(group))
    return dist.all_reduce(tensor, group=group, async_op=True).get_future().then(lambda fut: fut.value()[0])


def _compress_hook(dtype, process_group, bucket):
    group = process_group
    buffer = bucket.buffer()
    compressed = buffer.to(dtype).div_(dist.get_world_size(group))

    def decompress(fut):
        decompressed = fut.value()[0]
        buffer.copy_(decompressed)
        return buffer

    return dist.all_reduce(compressed, group=group, async_op=True).get_future().then(decompress)


def fp16_compress_hook(process_group, bucket):
    """All-reduces the bucket in float16 (averaged before the sum, which keeps it in range)."""
    return _compress_hook(ember.float16, process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """All-reduces the bucket in bfloat16."""
    return _compress_hook(ember.bfloat16, process_group, bucket)
