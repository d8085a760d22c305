# Precompiled headers for the sanitized build (scripts/configure_sanitized.sh turns this on).
# Nearly every translation unit includes nlohmann/json and fmt, and in a clang build with the
# sanitizers parsing and instantiating them is about a third of each unit's compile time: a
# sample of 14 units took 91.9 s of CPU without and 62.8 s with a precompiled header. That
# build is compiled cold in CI (no compiler cache reaches it), so the saving is CI time. The
# default build stays without: its objects are reused through ccache by the package and
# Soft-RoCE builds, and a precompiled header would cost those cache hits.
#
# Each target with at least four C++ units gets its own header (one shared through REUSE_FROM
# would need the same definitions and options on every target, which the families do not have);
# a target with fewer would spend more compiling the header than it saves.
include(RailgaugeTargets)

option(RAILGAUGE_PCH "Precompile the common third-party headers (sanitized build)" OFF)

function(railgauge_precompile_headers)
  if(NOT RAILGAUGE_PCH)
    return()
  endif()
  railgauge_compiled_targets(targets)
  set(count 0)
  foreach(target IN LISTS targets)
    get_target_property(sources ${target} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.cpp$")
    list(LENGTH sources cxx_units)
    if(cxx_units LESS 4)
      continue()
    endif()
    set(headers <nlohmann/json.hpp> <fmt/format.h> <filesystem> <map> <optional> <string>
                <vector>)
    get_target_property(links ${target} LINK_LIBRARIES)
    if(links MATCHES "GTest::")
      list(APPEND headers <gtest/gtest.h>)
    endif()
    foreach(header IN LISTS headers)
      target_precompile_headers(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${header}>")
    endforeach()
    # A unit with options of its own (memory/host_kernels.cpp: -fno-builtin) cannot use a header
    # compiled without them: clang refuses it.
    get_target_property(source_dir ${target} SOURCE_DIR)
    foreach(source IN LISTS sources)
      cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${source_dir})
      get_source_file_property(options ${source} TARGET_DIRECTORY ${target} COMPILE_OPTIONS)
      get_source_file_property(flags ${source} TARGET_DIRECTORY ${target} COMPILE_FLAGS)
      if(options OR flags)
        set_source_files_properties(${source} TARGET_DIRECTORY ${target}
                                    PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
      endif()
    endforeach()
    math(EXPR count "${count} + 1")
  endforeach()
  message(STATUS "railgauge: precompiled headers for ${count} targets")
endfunction()
