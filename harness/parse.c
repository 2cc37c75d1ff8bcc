/* parse.c - strict number parsers (parse.h): used by the axes (axes.c), the cache sizes
 * (caches.c) and the CSV readers. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* Strict unsigned decimal: digits only, no sign, no trailing text, no overflow. */
int hb_parse_u64(const char *s, unsigned long long *out)
{
	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	*out = strtoull(s, NULL, 10);
	return errno ? -1 : 0;
}

/* Strict unsigned decimal number: digits with at most one '.', nothing else (strtod alone
 * takes " 5", "0x10", "1e3" and "inf"). */
int hb_parse_decimal(const char *s, double *out)
{
	char *end;
	if (!*s || strspn(s, "0123456789.") != strlen(s))
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	return *end || errno || end == s || !isfinite(*out) ? -1 : 0;
}
