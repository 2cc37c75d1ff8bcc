/* parse.h - the strict number parsers of the command line and the CSV readers (parse.c). */
#ifndef HB_PARSE_H
#define HB_PARSE_H

/* Strict unsigned decimal integer (digits only: no sign, space or trailing text) into
 * *out. Returns 0, or -1 when s is not one or overflows. */
int hb_parse_u64(const char *s, unsigned long long *out);
/* Strict unsigned decimal number (digits with at most one '.': no sign, exponent, hex,
 * inf or nan) into *out. Returns 0 or -1. */
int hb_parse_decimal(const char *s, double *out);

#endif
