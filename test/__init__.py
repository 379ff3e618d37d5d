# Makes `python -m test.fuzz` find this folder rather than the standard library's `test`.
