/* json.c - the run in google-benchmark's JSON output format (benchmark/docs/user_guide.md,
 * "Output Formats"), so google-benchmark's tools/compare.py and dashboards that read it
 * can use dodbench results. One "iteration" entry per measured repetition (iterations = 1:
 * each repetition is one timed region), then "aggregate" entries mean, median, stddev
 * and cv per case, as google-benchmark writes with --benchmark_repetitions. The --out-json
 * reporter (report.h; main.c's json_end, which owns the temporary file and its rename)
 * writes it from the run's cases when the run ends. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run.h"

int hb_json_tmp_path(char *buf, size_t len, const char *path, long pid)
{
	if ((size_t)snprintf(buf, len, "%s.tmp-%ld", path, pid) < len)
		return 0;
	if (len)
		buf[0] = '\0';
	return -1;
}

static void put_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Every axis of case c as a field named like its CSV column ("n": 100000, "order":
 * "random", "axis_knob": 3): a number for counts, sizes and fractions, a string for words.
 * As in the CSV, the schema-3 axes are always there and an appended axis the case does not
 * take is left out. google-benchmark's readers ignore fields they do not know; ours find
 * the case's axes without parsing its name. */
static void put_axes(FILE *f, const struct hb_case *c)
{
	const struct hb_axis *const *all;
	size_t n_axes = hb_axes(&all);
	for (size_t i = 0; i < n_axes; i++) {
		char value[64];
		if (i >= HB_N_SCHEMA3_AXES && !(c->taken & (1u << i)))
			continue;
		hb_axis_format(all[i], c->axis[i], false, value, sizeof value);
		fputs("      ", f);
		put_json_str(f, all[i]->name);
		fputs(": ", f);
		if (all[i]->kind == HB_AXIS_WORD)
			put_json_str(f, value);
		else
			fputs(value, f);
		fputs(",\n", f);
	}
}

static void entry(FILE *f, bool *first, const struct hb_case *c, size_t family,
                  const char *run_type, const char *aggregate, size_t rep, size_t reps,
                  double real_ns, double cpu_ns)
{
	char name[1024];
	if (aggregate)
		snprintf(name, sizeof name, "%s_%s", c->name, aggregate);
	else
		snprintf(name, sizeof name, "%s", c->name);
	fprintf(f, "%s\n    {\n      \"name\": ", *first ? "" : ",");
	*first = false;
	put_json_str(f, name);
	fprintf(f, ",\n      \"family_index\": %zu,\n      \"per_family_instance_index\": 0,\n"
	           "      \"run_name\": ", family);
	put_json_str(f, c->name);
	fprintf(f, ",\n      \"run_type\": \"%s\",\n      \"repetitions\": %zu,\n", run_type, reps);
	if (aggregate)
		fprintf(f, "      \"threads\": 1,\n      \"aggregate_name\": \"%s\",\n"
		           "      \"aggregate_unit\": \"%s\",\n",
		        aggregate, strcmp(aggregate, "cv") == 0 ? "percentage" : "time");
	else
		fprintf(f, "      \"repetition_index\": %zu,\n      \"threads\": 1,\n", rep);
	put_axes(f, c);
	fprintf(f, "      \"iterations\": %llu,\n      \"real_time\": %.17g,\n"
	           "      \"cpu_time\": %.17g,\n      \"time_unit\": \"ns\"",
	        (unsigned long long)(c->passes ? c->passes : 1), real_ns, cpu_ns);
	/* Throughput only where it means one: not for a dispersion aggregate. */
	if (!aggregate || strcmp(aggregate, "mean") == 0 || strcmp(aggregate, "median") == 0)
		fprintf(f, ",\n      \"items_per_second\": %.17g",
		        real_ns > 0 ? c->ns_per_op_div * 1e9 / real_ns : 0.0);
	fputs("\n    }", f);
}

int hb_json_write(FILE *f, const struct hb_env *env, const struct hb_case *cases,
                  size_t n_cases)
{
	char date[32];
	hb_utc_now(date, sizeof date);
	fprintf(f, "{\n  \"context\": {\n    \"date\": \"%s\",\n    \"host_name\": ", date);
	put_json_str(f, env->host);
	fprintf(f, ",\n    \"executable\": \"dodbench\",\n    \"num_cpus\": %ld,\n"
	           "    \"mhz_per_cpu\": 0,\n    \"cpu_scaling_enabled\": %s,\n"
	           "    \"caches\": [],\n    \"library_build_type\": \"%s\",\n    \"cpu_model\": ",
	        env->n_cpus, strcmp(env->governor, "performance") != 0 ? "true" : "false",
	        env->build_type);
	put_json_str(f, env->cpu_model);
	fputs(",\n    \"compiler\": ", f);
	put_json_str(f, env->compiler);
	fputs(",\n    \"cflags\": ", f);
	put_json_str(f, env->cflags);
	fputs(",\n    \"git_rev\": ", f);
	put_json_str(f, env->git_rev);
	fputs(",\n    \"run_id\": ", f);
	put_json_str(f, env->run_id);
	fprintf(f, ",\n    \"counter_source\": \"%s\"\n  },\n  \"benchmarks\": [", hb_counter_source());

	bool first = true;
	size_t family = 0;
	for (size_t i = 0; i < n_cases; i++) {
		const struct hb_case *c = &cases[i];
		if (c->skip)
			continue;
		if (c->status != HB_OK) { /* google-benchmark's form of a benchmark that failed */
			fprintf(f, "%s\n    {\n      \"name\": ", first ? "" : ",");
			first = false;
			put_json_str(f, c->name);
			fputs(",\n      \"run_name\": ", f);
			put_json_str(f, c->name);
			fprintf(f, ",\n      \"run_type\": \"iteration\",\n      \"error_occurred\": true,\n"
			           "      \"error_message\": ");
			char msg[300];
			snprintf(msg, sizeof msg, "%s: %s", hb_status_names[c->status], c->status_detail);
			put_json_str(f, msg);
			fputs("\n    }", f);
		}
		if (c->done == 0)
			continue;
		for (size_t r = 0; r < c->done; r++)
			entry(f, &first, c, family, "iteration", NULL, r, c->done,
			      (double)c->elapsed_ns[r], (double)c->cpu_ns[r]);
		struct hb_stats real, cpu;
		hb_stats_of(c->elapsed_ns, c->done, &real);
		hb_stats_of(c->cpu_ns, c->done, &cpu);
		entry(f, &first, c, family, "aggregate", "mean", 0, c->done, real.mean, cpu.mean);
		entry(f, &first, c, family, "aggregate", "median", 0, c->done, real.median, cpu.median);
		entry(f, &first, c, family, "aggregate", "stddev", 0, c->done, real.cv * real.mean,
		      cpu.cv * cpu.mean);
		entry(f, &first, c, family, "aggregate", "cv", 0, c->done, real.cv, cpu.cv);
		family++;
	}
	fputs("\n  ]\n}\n", f);
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
