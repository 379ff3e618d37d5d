# The CUDA backend: libember_cuda, built where the CUDA toolkit (nvcc) and
# the cuBLAS headers are found. It links the CUDA runtime statically and
# loads the driver and cuBLAS only when used, so it loads (and Ember imports)
# on machines without a GPU; ember.cuda.is_available() then says False.
set(EMBER_USE_CUDA AUTO CACHE STRING "Build the CUDA backend: ON, OFF, or AUTO (where the CUDA toolkit is found)")
set_property(CACHE EMBER_USE_CUDA PROPERTY STRINGS AUTO ON OFF)

set(EMBER_HAVE_CUDA OFF)
if(NOT EMBER_USE_CUDA STREQUAL "OFF")
  find_package(CUDAToolkit QUIET)
  # cuBLAS headers: the toolkit's own, or the nvidia-cublas wheel's.
  execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])"
                  OUTPUT_VARIABLE EMBER_PYTHON_PURELIB OUTPUT_STRIP_TRAILING_WHITESPACE)
  find_path(CUBLAS_INCLUDE_DIR cublas_v2.h
            HINTS ${CUDAToolkit_INCLUDE_DIRS} ${EMBER_PYTHON_PURELIB}/nvidia/cu13/include
                  ${EMBER_PYTHON_PURELIB}/nvidia/cublas/include)
  include(CheckLanguage)
  check_language(CUDA)
  if(CUDAToolkit_FOUND AND CMAKE_CUDA_COMPILER AND CUBLAS_INCLUDE_DIR)
    set(EMBER_HAVE_CUDA ON)
  elseif(EMBER_USE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "EMBER_USE_CUDA=ON, but the CUDA toolkit (${CUDAToolkit_FOUND}), nvcc "
                        "(${CMAKE_CUDA_COMPILER}) or cublas_v2.h (${CUBLAS_INCLUDE_DIR}) was not found")
  else()
    message(STATUS "CUDA backend: off (toolkit ${CUDAToolkit_FOUND}, nvcc ${CMAKE_CUDA_COMPILER}, "
                   "cuBLAS headers ${CUBLAS_INCLUDE_DIR})")
  endif()
endif()

if(EMBER_HAVE_CUDA)
  # Hopper (sm_90) plus Turing (sm_75) machine code, and PTX for newer GPUs.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "75-real;90")
  endif()
  if(CCACHE_PROGRAM)
    set(CMAKE_CUDA_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
  endif()
  enable_language(CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  message(STATUS "CUDA backend: on (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES})")

  ember_library(cuda
    SOURCES
      ${EMBER_GENERATED_DIR}/aten/generated/RegisterCUDA.cpp
      c10/cuda/CachingAllocatorCore.cpp c10/cuda/CUDACachingAllocator.cpp c10/cuda/CUDAFunctions.cpp
      aten/native/cuda/Blas.cpp aten/native/cuda/CUDAHooks.cpp
      aten/native/cuda/BinaryOps.cu aten/native/cuda/Copy.cu aten/native/cuda/FusedAdam.cu aten/native/cuda/LossNLL.cu
      aten/native/cuda/ReduceOps.cu aten/native/cuda/SoftMax.cu aten/native/cuda/UnaryOps.cu
    PUBLIC_DEPS aten
    PRIVATE_DEPS CUDA::cudart_static ${CMAKE_DL_LIBS})
  target_include_directories(cuda PRIVATE ${CUBLAS_INCLUDE_DIR})
  # Warnings are GCC flags: pass them to nvcc's host compiler only for C++.
  target_compile_options(cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda --expt-relaxed-constexpr
                                                                 -Xcompiler=-Wall,-Wno-unused-parameter>)
  set_source_files_properties(${EMBER_GENERATED_DIR}/aten/generated/RegisterCUDA.cpp PROPERTIES GENERATED TRUE)
endif()
