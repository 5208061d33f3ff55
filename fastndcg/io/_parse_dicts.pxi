# pytrec_eval's nested dicts ({query: {doc: value}}) into the byte pools of the joins, in one
# compiled walk with PyDict_Next. Included by _parse.pyx.

from cpython.object cimport PyObject
from cpython.dict cimport PyDict_Next
from collections import defaultdict as _defaultdict

#: the inner dicts the walk reads (pytrec_eval's readers give defaultdicts outside, dicts inside):
#: dict and defaultdict, whose items are the dict's own (no subclass that might override them)
cdef object _DEFAULTDICT = _defaultdict

cdef extern from "Python.h":
    bint PyDict_CheckExact(PyObject* o)
    bint PyUnicode_CheckExact(PyObject* o)
    bint PyFloat_CheckExact(PyObject* o)
    bint PyLong_CheckExact(PyObject* o)
    int PyUnicode_READY(PyObject* o)
    bint PyUnicode_IS_ASCII(PyObject* o)
    Py_ssize_t PyUnicode_GET_LENGTH(PyObject* o)
    void* PyUnicode_DATA(PyObject* o)
    double PyFloat_AS_DOUBLE(PyObject* o)
    long long PyLong_AsLongLongAndOverflow(PyObject* o, int* overflow)
    char* PyByteArray_AS_STRING(object o)
    int PyByteArray_Resize(object o, Py_ssize_t n) except -1


cdef inline bint plain_id(PyObject* k) noexcept:
    """An id the walk takes as it is: an exact, non-empty ASCII str (its bytes are its UTF-8)."""
    return (PyUnicode_CheckExact(k) and PyUnicode_READY(k) == 0 and PyUnicode_IS_ASCII(k)
            and PyUnicode_GET_LENGTH(k) > 0)


cdef bint has_byte_below_33(const uint8_t* p, int64_t n) noexcept nogil:
    """Whether any of the n bytes is <= 32: eight at a time ("has a byte less than 0x21",
    exact for whether there is one), the rest one by one."""
    cdef uint64_t w, acc = 0
    cdef int64_t i = 0
    while i + 8 <= n:
        memcpy(&w, p + i, 8)
        acc |= (w - <uint64_t>0x2121212121212121) & ~w & <uint64_t>0x8080808080808080
        i += 8
    if acc:
        return True
    while i < n:
        if p[i] <= 32:
            return True
        i += 1
    return False


cdef Py_ssize_t estimated_bytes(object data, Py_ssize_t n):
    """Bytes for the n ids of the nested dicts: as many as their first 64 suggest (the pool
    grows if they were short ones; each page is faulted in once)."""
    cdef Py_ssize_t pos = 0, ipos, i = 0, total = 0
    cdef PyObject* qid
    cdef PyObject* docs
    cdef PyObject* doc
    cdef PyObject* value
    while i < 64 and PyDict_Next(data, &pos, &qid, &docs):
        ipos = 0
        while i < 64 and PyDict_Next(<object>docs, &ipos, &doc, &value):
            if PyUnicode_CheckExact(doc):
                total += PyUnicode_GET_LENGTH(doc)
            i += 1
    return (total // i + 2) * n if i else 0


def dict_rows(object data, bint integer):
    """The rows of pytrec_eval's nested dicts ``{query: {doc: value}}`` when they are the
    usual ones: every inner value a dict or a defaultdict (no other subclass), every doc id
    an exact, non-empty ASCII str without a byte <= 32 (whitespace or a control character),
    every value an exact float that is finite (``integer``: an exact int within int64).
    Returns (query ids (the dict's keys, in its order), rows per query (int64), the doc ids'
    bytes back to back (uint8), each row's start in them (int64, rows + 1: row r ends where
    r + 1 starts), values (float64, or int64 with ``integer``)), rows in the dicts' order; or
    None for anything else, which the caller's general path reads (and reports, naming the
    row). One walk over the entries (PyDict_Next), no Python object made per entry: the
    cost is reading each id and value object once."""
    cdef Py_ssize_t pos = 0, ipos, n = 0, nq, t = 0, r = 0, length, cap, size, i
    cdef PyObject* qid
    cdef PyObject* docs
    cdef PyObject* doc
    cdef PyObject* value
    cdef int overflow = 0
    cdef long long iv
    cdef double v
    cdef int64_t used = 0
    cdef uint8_t* base
    if not isinstance(data, dict):
        return None
    nq = len(data)
    sizes_a = np.empty(nq, dtype=np.int64)
    cdef int64_t[::1] sizes = sizes_a
    while PyDict_Next(data, &pos, &qid, &docs):         # the rows per query (no entry read)
        if not PyDict_CheckExact(docs) and type(<object>docs) is not _DEFAULTDICT:
            return None
        if t >= nq:
            return None
        size = len(<object>docs)
        sizes[t] = size
        n += size
        t += 1
    if t != nq:
        return None
    start_a = np.empty(n + 1, dtype=np.int64)
    values_a = np.empty(n, dtype=np.int64 if integer else np.float64)
    cdef int64_t[::1] start = start_a
    cdef int64_t[::1] ivalues
    cdef double[::1] fvalues
    if integer:
        ivalues = values_a
    else:
        fvalues = values_a
    cap = estimated_bytes(data, n)
    pool = bytearray(cap)
    base = <uint8_t*>PyByteArray_AS_STRING(pool)
    pos = 0
    t = 0
    while PyDict_Next(data, &pos, &qid, &docs):
        ipos = 0
        size = 0
        while PyDict_Next(<object>docs, &ipos, &doc, &value):
            if not plain_id(doc) or r >= n:
                return None
            if integer:
                if not PyLong_CheckExact(value):
                    return None
                iv = PyLong_AsLongLongAndOverflow(value, &overflow)
                if overflow:
                    return None
                ivalues[r] = iv
            else:
                if not PyFloat_CheckExact(value):
                    return None
                v = PyFloat_AS_DOUBLE(value)
                if not isfinite(v):
                    return None
                fvalues[r] = v
            length = PyUnicode_GET_LENGTH(doc)
            if used + length > cap:
                cap = max(2 * cap, used + length)
                if PyByteArray_Resize(pool, cap) < 0:
                    raise MemoryError()
                base = <uint8_t*>PyByteArray_AS_STRING(pool)
            start[r] = used
            memcpy(base + used, PyUnicode_DATA(doc), length)
            used += length
            r += 1
            size += 1
        if size != sizes[t]:          # an inner dict changed since it was counted
            return None
        t += 1
    if r != n:
        return None
    start[n] = used
    if has_byte_below_33(base, used):
        return None
    if PyByteArray_Resize(pool, used) < 0:
        raise MemoryError()
    return list(data), sizes_a, np.frombuffer(pool, dtype=np.uint8), start_a, values_a
