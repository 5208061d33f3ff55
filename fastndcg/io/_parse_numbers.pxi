# File scanners: one number per line (predictions, group files). Included by _parse.pyx.

# ------------------------------------------------------------------ one number per line

def parse_numbers(const unsigned char[::1] buf, int64_t line, Py_ssize_t column, bint integer,
                  double[::1] out,          # OUT (lines)
                  int64_t[::1] iout):       # OUT (lines), used when integer
    """One number per line (prediction, .query/.group files).

    ``column`` < 0: the line must hold exactly one field. ``column`` >= 0:
    take that whitespace-separated field (0-based) and ignore the others.
    Blank lines are errors (a missing value), so are NUL bytes; "#" lines are not special.
    Returns (status, count, line, err_line)."""
    cdef Py_ssize_t n = buf.shape[0]
    cdef const unsigned char* p
    cdef const unsigned char* end
    cdef const unsigned char* eol
    cdef const unsigned char* s
    cdef const unsigned char* t
    cdef Py_ssize_t field
    cdef int64_t count = 0, iv
    cdef double v
    cdef int status = OK
    if n == 0:
        return OK, 0, line, 0
    p = &buf[0]
    end = p + n
    with nogil:
        while p < end:
            eol = <const unsigned char*>memchr(p, 10, end - p)
            if eol == NULL:
                eol = end
            line += 1
            s = skip_space(p, eol)
            if s == eol:
                status = EMPTY_LINE
                break
            if has_nul(s, eol):
                status = NUL_BYTE
                break
            if column > 0:
                field = 0
                while field < column and s < eol:
                    s = skip_space(token_end(s, eol), eol)
                    field += 1
                if s == eol:
                    status = MISSING_FIELDS
                    break
            t = token_end(s, eol)
            if column < 0 and skip_space(t, eol) != eol:
                status = TOO_MANY_FIELDS
                break
            if integer:
                if not parse_int(s, t, &iv):
                    status = BAD_INTEGER
                    break
                iout[count] = iv
            else:
                if not parse_double(s, t, &v):
                    status = BAD_NUMBER
                    break
                out[count] = v
            count += 1
            p = eol + 1
    return status, count, line, line if status != OK else 0
