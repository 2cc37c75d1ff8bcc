/* cxx_glue.hpp - what every C++ peer adapter shares: making a container behind a void *
 * without letting an exception cross into C, and ops tables that name only what they
 * implement.
 *
 * A C++ peer fills its ops tables (struct dod_ops, a family's extension table) as the C
 * containers do: C++20 designated initializers, in the members' order, naming only the
 * members it implements; every member it leaves out is null (zero-initialized), so a
 * member added to a table edits no peer. gcc's -Wextra warns about omitted members in C++
 * (-Wmissing-field-initializers), never in C: the warning is off for the files that
 * include this header. */
#ifndef DOD_PEERS_CXX_GLUE_HPP
#define DOD_PEERS_CXX_GLUE_HPP

#include <cstddef>
#include <new>
#include <stdexcept>

extern "C" {
#include "dod_common.h"
}

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* *out = new T, then reserve(t, capacity_elems). Returns DOD_OK, or DOD_ENOMEM when the
 * allocation or the reservation throws bad_alloc or length_error (nothing is leaked). */
template <class T, class Reserve>
int dod_cxx_create(void **out, std::size_t capacity_elems, Reserve reserve)
{
	try {
		T *t = new T;
		try {
			reserve(*t, capacity_elems);
		} catch (...) {
			delete t;
			throw;
		}
		*out = t;
		return DOD_OK;
	} catch (const std::bad_alloc &) {
		return DOD_ENOMEM;
	} catch (const std::length_error &) {
		return DOD_ENOMEM;
	}
}

/* Runs f(), which returns a DOD_* code, with bad_alloc and length_error turned into
 * DOD_ENOMEM: the C boundary of an operation that allocates everything it needs before
 * it changes anything, so a throw leaves the container as it was. */
template <class F>
int dod_cxx_nothrow(F f) noexcept
{
	try {
		return f();
	} catch (const std::bad_alloc &) {
		return DOD_ENOMEM;
	} catch (const std::length_error &) {
		return DOD_ENOMEM;
	}
}

#endif
