"""Arrays that hold memory only where they are written, and give it back when freed.

A run of millions of results is joined into pieces, then placed in the qrels' topic
order while the pieces are freed one by one (:func:`fastndcg.io._joining.join_run_file`).
For the peak to stay at about the size of the result, both ends must behave:

* numpy gives an array of 4 MiB or more transparent huge pages (``madvise``): the
  placement writes each topic's rows to its place in the output, all over it, so
  2 MiB pages would make the whole output resident long before it is filled;
* an array below glibc's mmap threshold (which grows up to 32 MiB as arrays are
  freed) lives on the heap, where freeing it rarely returns memory to the system.

:func:`page_array` puts a large array in its own private anonymous mapping: 4 KiB
pages, resident as they are first written, unmapped when the array is freed.
"""
from __future__ import annotations

import mmap

import numpy as np

#: Below this many bytes an array comes from numpy's allocator (a mapping per small
#: array would cost a system call each and gain nothing).
PAGE_ARRAY_MIN_BYTES = 1 << 18

_PRIVATE = getattr(mmap, "MAP_PRIVATE", None)     # POSIX only


def page_array(n: int, dtype) -> np.ndarray:
    """An uninitialised writable array of ``n`` items of ``dtype`` in its own
    anonymous mapping (see the module's docstring); small arrays, and systems
    without private mappings, get ``np.empty``.

    The array behaves as any numpy array (its ``base`` is the mapping, unmapped
    once no array refers to it)."""
    dt = np.dtype(dtype)
    nbytes = int(n) * dt.itemsize
    if nbytes < PAGE_ARRAY_MIN_BYTES or _PRIVATE is None:
        return np.empty(int(n), dtype=dt)
    return np.frombuffer(mmap.mmap(-1, nbytes, flags=_PRIVATE), dtype=dt, count=int(n))


def heap_array(n: int, dtype) -> np.ndarray:
    """``np.empty``, as an allocator like :func:`page_array`: for the arrays of small
    runs, whose pages the process reuses from run to run (a mapping each would fault
    in fresh pages every time: about 1.5 ms for a run of 100,000 lines)."""
    return np.empty(int(n), dtype=dtype)


#: Results from which a run's placed arrays are mapped (:func:`page_array`); below, heap arrays.
PAGED_RESULTS = 1 << 20
