# Compiles through ccache when it is installed (scripts/setup.sh installs it), so that the builds
# of one checkout share what they compiled alike: CI builds the same sources into build/ (CUDA),
# build-softroce/ (no CUDA) and more, and most translation units do not differ between them.
# CCACHE_NOHASHDIR: objects with debug information are shared across build directories (their
# DW_AT_comp_dir then names the first one). -DRAILGAUGE_CCACHE=OFF, or a launcher of your own
# (-DCMAKE_CXX_COMPILER_LAUNCHER=...), turns this off.
option(RAILGAUGE_CCACHE "Compile C and C++ through ccache when it is installed" ON)
if(RAILGAUGE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(RAILGAUGE_CCACHE_PROGRAM ccache)
  if(RAILGAUGE_CCACHE_PROGRAM)
    set(ccache_env CCACHE_NOHASHDIR=1)
    # A unity batch is a file of the build directory that includes the sources by their absolute
    # paths: with the source root as base_dir, ccache passes the batch's path relative to the
    # working directory, which is the same in every build directory, so build-deb/ and
    # build-softroce/ hit on build/'s batches. A file compiled on its own would then be named
    # ../../x.cpp, and __FILE__ with it (-fmacro-prefix-map no longer applies): not without unity.
    if(CMAKE_UNITY_BUILD)
      list(APPEND ccache_env CCACHE_BASEDIR=${CMAKE_SOURCE_DIR})
    endif()
    set(launcher ${CMAKE_COMMAND} -E env ${ccache_env} ${RAILGAUGE_CCACHE_PROGRAM})
    set(CMAKE_C_COMPILER_LAUNCHER ${launcher})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${launcher})
    message(STATUS "Compiling through ${RAILGAUGE_CCACHE_PROGRAM}")
  endif()
endif()
