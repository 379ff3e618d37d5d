import os

# Where an installed wheel keeps ember's CMake package: pass it to CMake as
#   cmake -DCMAKE_PREFIX_PATH=$(python -c 'import ember; print(ember.utils.cmake_prefix_path)')
cmake_prefix_path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "share", "cmake")
