"""Code generation from native_functions.yaml (run at build time; outputs are never committed)."""
