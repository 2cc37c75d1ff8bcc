/* alloc_hook_new.cpp - every replaceable operator new and delete of the fuzz binary on
 * top of malloc and free, so C++ peers' allocations reach alloc_hook.c's wrapper (and
 * fail with std::bad_alloc when it refuses). All of them are defined: defining only some
 * would pull in AddressSanitizer's own set for the rest and clash. */
#include <cstdlib>
#include <new>

static void *alloc_or_throw(std::size_t n)
{
	void *p = std::malloc(n ? n : 1);
	if (!p)
		throw std::bad_alloc();
	return p;
}

static void *aligned_or_throw(std::size_t n, std::align_val_t al)
{
	std::size_t a = static_cast<std::size_t>(al);
	if (a < sizeof(void *))
		a = sizeof(void *);
	void *p = std::aligned_alloc(a, (n + a - 1) / a * a ? (n + a - 1) / a * a : a);
	if (!p)
		throw std::bad_alloc();
	return p;
}

void *operator new(std::size_t n) { return alloc_or_throw(n); }
void *operator new[](std::size_t n) { return alloc_or_throw(n); }
void *operator new(std::size_t n, const std::nothrow_t &) noexcept { return std::malloc(n ? n : 1); }
void *operator new[](std::size_t n, const std::nothrow_t &) noexcept { return std::malloc(n ? n : 1); }
void *operator new(std::size_t n, std::align_val_t a) { return aligned_or_throw(n, a); }
void *operator new[](std::size_t n, std::align_val_t a) { return aligned_or_throw(n, a); }
void *operator new(std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept
{
	try {
		return aligned_or_throw(n, a);
	} catch (...) {
		return nullptr;
	}
}
void *operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t &t) noexcept
{
	return operator new(n, a, t);
}

void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }
void operator delete(void *p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void *p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void *p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void *p, std::align_val_t, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, std::align_val_t, const std::nothrow_t &) noexcept { std::free(p); }
