# Writes OUTPUT, a C++ source defining railgauge::source_commit() and source_dirty(): the commit
# of SOURCE_DIR this build compiled and whether tracked files differed from it. Run at every build
# (harness/CMakeLists.txt), it rewrites OUTPUT only when either changed, so a new commit recompiles
# that one file. A run's manifest names them, so that a committed reference run says which source
# measured it; a build from a tree that is not a git checkout says so with an empty commit.
execute_process(
  COMMAND git -C "${SOURCE_DIR}" rev-parse HEAD
  OUTPUT_VARIABLE commit RESULT_VARIABLE commit_rc
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
set(dirty false)
if(commit_rc EQUAL 0)
  execute_process(
    COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
    OUTPUT_VARIABLE porcelain RESULT_VARIABLE status_rc ERROR_QUIET)
  if(NOT status_rc EQUAL 0 OR NOT porcelain STREQUAL "")
    set(dirty true)
  endif()
else()
  set(commit "")
endif()
file(WRITE "${OUTPUT}.tmp"
     "// Generated at build time by cmake/RailgaugeSourceCommit.cmake.\n"
     "#include \"harness/source_commit.h\"\n"
     "namespace railgauge {\n"
     "std::string_view source_commit() { return \"${commit}\"; }\n"
     "bool source_dirty() { return ${dirty}; }\n"
     "} // namespace railgauge\n")
configure_file("${OUTPUT}.tmp" "${OUTPUT}" COPYONLY)
