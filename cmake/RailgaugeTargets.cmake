# The targets of the build, for the functions that act on all of them (RailgaugePch.cmake) and
# for the tests that read what each target compiles (tests/unity_names_test.py).

# Every target defined in `dir` and the directories below it.
function(railgauge_targets_in dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    railgauge_targets_in(${sub} sub_targets)
    list(APPEND targets ${sub_targets})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# Every target of the build that compiles sources: libraries and executables.
function(railgauge_compiled_targets out)
  railgauge_targets_in(${CMAKE_SOURCE_DIR} targets)
  set(compiled "")
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      list(APPEND compiled ${target})
    endif()
  endforeach()
  set(${out} ${compiled} PARENT_SCOPE)
endfunction()

# Writes ${CMAKE_BINARY_DIR}/target_sources.txt: a line "target<TAB>absolute path" for each C
# and C++ source of each compiled target. Builds compile a target's sources in unity batches
# (cmake/RailgaugeUnity.cmake), where two of its files that define the same name at namespace
# scope no longer compile; which files share a batch differs between builds (CUDA on or off) and
# a build with -DCMAKE_UNITY_BUILD=OFF never sees it, so the test reads the whole list.
function(railgauge_write_target_sources)
  railgauge_compiled_targets(targets)
  set(lines "")
  foreach(target IN LISTS targets)
    get_target_property(sources ${target} SOURCES)
    get_target_property(source_dir ${target} SOURCE_DIR)
    list(FILTER sources INCLUDE REGEX "\\.(c|cc|cpp)$")
    foreach(source IN LISTS sources)
      cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${source_dir} NORMALIZE)
      string(APPEND lines "${target}\t${source}\n")
    endforeach()
  endforeach()
  file(WRITE ${CMAKE_BINARY_DIR}/target_sources.txt "${lines}")
endfunction()
