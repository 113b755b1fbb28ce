"""The top of a cuckoo tree holds, once built, the PostgreSQL extension's
cuckoo.so, which `import cuckoo` run here would load (and fail on: it needs
the server's symbols).  This directory takes its place: a package wins over a
module of the same name in one directory.  It loads the Python module from
the rest of sys.path instead: python/ on PYTHONPATH (a build in place,
python/setup.py build_ext --inplace) or where pip installed it.
"""
import importlib.machinery
import importlib.util
import os
import sys

_here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_path = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
_spec = importlib.machinery.PathFinder.find_spec(__name__, _path)
if _spec is None or _spec.origin == __file__:
    raise ImportError("cuckoo: the Python module is not installed and not on PYTHONPATH: "
                      "python3 -m pip install ./python, or build it in place "
                      "(cd python && python3 setup.py build_ext --inplace) and set PYTHONPATH=python "
                      "(docs/python.md); this directory only stands in for the top's cuckoo.so",
                      name=__name__)
_module = importlib.util.module_from_spec(_spec)
sys.modules[__name__] = _module
_spec.loader.exec_module(_module)
