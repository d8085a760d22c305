"""Runs the unittest cases named on the command line (all of the module's when none is named),
and exits 1 when one fails or when the names matched no test, so a renamed test cannot pass."""
import importlib
import os
import sys
import unittest


def run_named_tests(names):
    module = sys.modules["__main__"]
    loader = unittest.TestLoader()
    suite = (unittest.TestSuite(loader.loadTestsFromName(n, module) for n in names)
             if names else loader.loadTestsFromModule(module))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)


def run_script_tests(test_globals, *modules, **aliases):
    """The main() of a test of scripts/*.py, run as `TEST.py SOURCE [names]`: sets the test's
    SOURCE, imports each of `modules` (and each alias=module) from SOURCE/scripts into its
    globals, where its cases reach them, and runs the named tests."""
    test_globals["SOURCE"] = sys.argv[1]
    sys.path.insert(0, os.path.join(sys.argv[1], "scripts"))
    for name, module in [(m, m) for m in modules] + list(aliases.items()):
        test_globals[name] = importlib.import_module(module)
    run_named_tests(sys.argv[2:])
