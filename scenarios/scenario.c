/* scenario.c - scenario list and helpers shared by the scenarios. */
#include "scenario.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dod_common.h"

#define SCN_ADDR(name) &scn_##name,
const struct scn_scenario *const scn_all[] = {SCN_LIST(SCN_ADDR)};
const size_t scn_count = sizeof scn_all / sizeof scn_all[0];

const struct scn_scenario *scn_find(const char *name)
{
	for (size_t i = 0; i < scn_count; i++)
		if (strcmp(scn_all[i]->name, name) == 0)
			return scn_all[i];
	return NULL;
}

uint64_t scn_key_sum(size_t n)
{
	/* n(n-1)/2 without overflow: halve whichever factor is even. */
	uint64_t a = n, b = n ? n - 1 : 0;
	return (a % 2 == 0) ? (a / 2) * b : a * (b / 2);
}

void scn_check_key_sum(struct scn_result *res, uint64_t sum, size_t n)
{
	res->checksum = sum;
	res->verified = sum == scn_key_sum(n);
	if (!res->verified)
		scn_fail(res, "key sum %llu, expected %llu", (unsigned long long)sum,
		         (unsigned long long)scn_key_sum(n));
}

void *scn_alloc_touched(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);
	if (p)
		memset(p, 0, bytes);
	return p;
}

int scn_fail(struct scn_result *res, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->why, sizeof res->why, fmt, ap);
	va_end(ap);
	res->verified = false;
	return SCN_RAN;
}

int scn_error(struct scn_result *res, const char *what, int err)
{
	snprintf(res->why, sizeof res->why, "%s: %s", what, dod_strerror(err));
	res->verified = false;
	return SCN_ERROR;
}

const char *scn_needs_handles(const struct dod_ops *ops)
{
	return (ops->caps & DOD_CAP_HANDLES) && ops->lookup_sum
	               ? NULL
	               : "no handles: the container offers push and iterate only";
}

int scn_handles_array(const struct dod_ops *ops, size_t n, uint64_t **out,
                      struct scn_result *res)
{
	*out = NULL;
	if (!(ops->caps & DOD_CAP_HANDLES))
		return 0;
	if (n > SIZE_MAX / sizeof **out || !(*out = scn_alloc_touched(n * sizeof **out)))
		return scn_error(res, "handles array", DOD_ENOMEM);
	return 0;
}

int scn_fill(const struct dod_ops *ops, size_t n, void **c_out, uint64_t **handles_out,
             struct scn_result *res)
{
	if (scn_handles_array(ops, n, handles_out, res))
		return SCN_ERROR;
	int err = ops->create(c_out, n);
	if (err) {
		free(*handles_out);
		*handles_out = NULL;
		return scn_error(res, "create", err);
	}
	if ((err = ops->insert_n(*c_out, n, 0, *handles_out))) {
		ops->destroy(*c_out);
		free(*handles_out);
		*handles_out = NULL;
		return scn_error(res, "insert_n", err);
	}
	return 0;
}
