# -DRAILGAUGE_FUZZ=ON: every target is compiled with libFuzzer's coverage instrumentation and
# AddressSanitizer + UndefinedBehaviorSanitizer, and tests/fuzz builds its fuzz_<name>
# executables. clang only (Debian's clang 14 carries libFuzzer); use a build directory of its
# own: scripts/sanitize.sh and scripts/fuzz.sh share build-sanitize (configure_sanitized.sh).
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "RAILGAUGE_FUZZ needs clang (libFuzzer), not ${CMAKE_CXX_COMPILER_ID}: "
                      "configure a separate build directory with -DCMAKE_CXX_COMPILER=clang++ "
                      "-DCMAKE_C_COMPILER=clang, or run scripts/fuzz.sh")
endif()
if(RAILGAUGE_ENABLE_CUDA)
  message(STATUS "RAILGAUGE_FUZZ: CUDA turned off (device code is not what the fuzzers check)")
  set(RAILGAUGE_ENABLE_CUDA OFF CACHE BOOL "" FORCE)
endif()
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                    -fno-sanitize-recover=undefined)
add_link_options(-fsanitize=address,undefined)
