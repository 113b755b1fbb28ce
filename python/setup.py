"""setup.py - builds the cuckoo Python module from the core's sources (../src/core).

    cd python && python3 setup.py build_ext --inplace     (then PYTHONPATH=python)
    python3 -m pip install ./python                       (where pip is installed)

Needs a C compiler, Python's headers (Debian: python3-dev), setuptools
(python3-setuptools) and xxhash's header (libxxhash-dev).  No other package.
"""
import glob
import os

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
CORE = os.path.join(HERE, '..', 'src', 'core')
if not os.path.isfile(os.path.join(CORE, 'cuckoo.h')):
    raise SystemExit('setup.py: the core sources (../src/core) are not beside python/: '
                     'build from a clone of the cuckoo repository')


def rel(path):
    return os.path.relpath(path, HERE)


core_sources = sorted(rel(p) for p in glob.glob(os.path.join(CORE, '*.c')))

setup(
    name='cuckoo',
    version='1.5.0',
    description='cuckoo filters in the bytes the cuckoo PostgreSQL extension stores',
    license='PostgreSQL',
    packages=['cuckoo'],
    package_dir={'cuckoo': rel(os.path.join(HERE, 'cuckoo'))},
    ext_modules=[Extension(
        'cuckoo._cuckoo',
        sources=[rel(os.path.join(HERE, 'cuckoo', '_cuckoo.c'))] + core_sources,
        include_dirs=[rel(CORE)],
        extra_compile_args=['-O2', '-std=gnu99', '-fvisibility=hidden'],
    )],
    python_requires='>=3.9',
)
