"""Runs the unittest cases named on the command line (all of the module's when none is named),
and exits 1 when one fails or when the names matched no test, so a renamed test cannot pass."""
import sys
import unittest


def run_named_tests(names):
    module = sys.modules["__main__"]
    loader = unittest.TestLoader()
    suite = (unittest.TestSuite(loader.loadTestsFromName(n, module) for n in names)
             if names else loader.loadTestsFromModule(module))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)
