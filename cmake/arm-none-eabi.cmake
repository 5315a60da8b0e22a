# CMake toolchain file for bare-metal 32-bit ARM with GNU arm-none-eabi (Debian's gcc-arm-none-eabi).
#
#   cmake -DCMAKE_TOOLCHAIN_FILE=path/to/pl011/cmake/arm-none-eabi.cmake \
#         -DARM_CPU_FLAGS="-mcpu=cortex-a7 -marm -mfloat-abi=soft" ...
# ARM_CPU_FLAGS (default: none, the compiler's own default CPU) is given to every compile and
# link, so that the C library and libgcc are the multilib built for that CPU.
# ARM_TOOLCHAIN_PREFIX (default: arm-none-eabi-) may name another toolchain, with its path:
# aarch64-linux-gnu- for AArch64, with ARM_CPU_FLAGS="-mcpu=cortex-a53 -mno-outline-atomics"
# (inline atomics: libgcc's outline helpers are outside the library's freestanding set).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(ARM_TOOLCHAIN_PREFIX "arm-none-eabi-" CACHE STRING "Prefix of the GNU tools, with their path if needed")
set(ARM_CPU_FLAGS "" CACHE STRING "CPU flags for every compile and link (-mcpu=..., -marm/-mthumb, -mfloat-abi=...)")
# try_compile projects see these too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ARM_TOOLCHAIN_PREFIX ARM_CPU_FLAGS)

set(CMAKE_C_COMPILER ${ARM_TOOLCHAIN_PREFIX}gcc)
set(CMAKE_ASM_COMPILER ${ARM_TOOLCHAIN_PREFIX}gcc)
set(CMAKE_AR ${ARM_TOOLCHAIN_PREFIX}ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${ARM_TOOLCHAIN_PREFIX}ranlib CACHE FILEPATH "")
set(CMAKE_OBJCOPY ${ARM_TOOLCHAIN_PREFIX}objcopy CACHE FILEPATH "")

set(CMAKE_C_FLAGS_INIT "${ARM_CPU_FLAGS}")
set(CMAKE_ASM_FLAGS_INIT "${ARM_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${ARM_CPU_FLAGS}")

# No operating system to run a test program on: check the compiler by building a library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
# Libraries and headers come from the toolchain, never from the host.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
