#pragma once
// How every analysis command ends on bad input: the message on stderr in the command line's own
// words (cli.cpp) and exit status 4, so that a script reading stderr sees one form whichever
// command it ran.
#include <iostream>

#include "harness/error.h"
#include "harness/exit_status.h"

namespace railgauge::analysis {

// `body()`'s exit status, or bad_input, said on stderr, where it throws InputError.
template <typename Body> int exit_status_of(Body &&body) {
  try {
    return body();
  } catch (const InputError &e) {
    std::cerr << "railgauge: error: " << e.what() << '\n';
    return code(ExitStatus::bad_input);
  }
}

} // namespace railgauge::analysis
