# Writes OUTPUT, a C++ source defining railgauge::source_commit() and source_dirty(): the commit
# of SOURCE_DIR this build compiled and whether tracked files differed from it. Run at every build
# (harness/CMakeLists.txt), it rewrites OUTPUT only when either changed, so a new commit recompiles
# that one file. A run's manifest names them, so that a committed reference run says which source
# measured it; a build from a tree that is not a git checkout of its own (a tarball, even one
# unpacked inside another repository) says so with an empty commit.
set(git git -c "safe.directory=${SOURCE_DIR}" -C "${SOURCE_DIR}")
execute_process(
  COMMAND ${git} rev-parse --show-toplevel HEAD
  OUTPUT_VARIABLE lines RESULT_VARIABLE rc
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_VARIABLE error)
set(commit "")
set(dirty false)
if(rc EQUAL 0)
  string(REPLACE "\n" ";" lines "${lines}")
  list(GET lines 0 toplevel)
  list(GET lines 1 head)
  file(REAL_PATH "${SOURCE_DIR}" source_real)
  file(REAL_PATH "${toplevel}" toplevel_real)
  # git looks up from SOURCE_DIR: a repository above it is another project's, not this source's
  if(toplevel_real STREQUAL source_real)
    set(commit "${head}")
    # --no-optional-locks: a status at every build must not take the index lock from a git
    # command the developer runs meanwhile
    execute_process(
      COMMAND ${git} --no-optional-locks status --porcelain --untracked-files=no
      OUTPUT_VARIABLE porcelain RESULT_VARIABLE status_rc ERROR_QUIET)
    if(NOT status_rc EQUAL 0 OR NOT porcelain STREQUAL "")
      set(dirty true)
    endif()
  endif()
elseif(EXISTS "${SOURCE_DIR}/.git")
  message(WARNING "railgauge: ${SOURCE_DIR} is a git checkout but git could not read its commit "
                  "(run.json will name none): ${error}")
endif()
file(WRITE "${OUTPUT}.tmp"
     "// Generated at build time by cmake/RailgaugeSourceCommit.cmake.\n"
     "#include \"harness/source_commit.h\"\n"
     "namespace railgauge {\n"
     "std::string_view source_commit() { return \"${commit}\"; }\n"
     "bool source_dirty() { return ${dirty}; }\n"
     "} // namespace railgauge\n")
configure_file("${OUTPUT}.tmp" "${OUTPUT}" COPYONLY)
file(REMOVE "${OUTPUT}.tmp")
