// Device memory as an emulated kernel reaches it: the one instrumented path
// (cuda/README.md, "The emulator": what makes it a checker).
//
// Under nvcc a kernel's pointer is a plain T* (scaleref/cuda/kernel.hpp's
// DevPtr). Here it is Ptr<T>: a pointer that can be compared, offset and
// converted to a pointer to const, but not dereferenced. A kernel reads and
// writes through ld(p) and st(p, v) alone, and each of those first tells the
// checker (checks.cpp) the address, the size, whether it is a load or a
// store, and the source line of the access. The checker finds which device
// allocation or which shared memory the bytes lie in and runs memcheck (the
// bytes inside one live allocation or the block's shared memory), initcheck
// (every byte loaded was written since cudaMalloc, or since the block began
// for shared memory) and, under SCALEREF_EMU_CHECK=race, racecheck.
//
// A raw pointer converts to Ptr<T> only explicitly (the launch does it for a
// kernel's arguments), and Ptr<T> has no way back to a raw pointer: a kernel
// source that dereferences device memory any other way does not compile
// here. Rows<T> is Rows with a Ptr<T> for its data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <scaleref/cuda/types.hpp>
#include <source_location>
#include <type_traits>

namespace scaleref::emu {

template <class T>
class Ptr;

namespace detail {

enum class Access : std::uint8_t { load, store, atomic };

// Called before every kernel access of `bytes` bytes at `p`; a defect fails
// the running block (and so the launch) with a message naming the kernel,
// block, thread, address and the source lines involved.
void access(const void* p, std::size_t bytes, std::size_t align, Access kind,
            const std::source_location& where);

template <class T>
T* raw(Ptr<T> p) {
  return p.p_;
}

}  // namespace detail

// A kernel's static shared array (kernel.hpp's SCALEREF_SHARED): registers
// [storage, storage + bytes) as shared memory and, the first time a block
// reaches it, poisons it and marks it unwritten for that block. Returns storage.
void* shared_static(void* storage, std::size_t bytes);

template <class T>
class Ptr {
 public:
  using element_type = T;
  Ptr() = default;
  Ptr(std::nullptr_t) {}  // NOLINT: a null argument, as with T*
  explicit Ptr(T* p) : p_(p) {}
  template <class U>
  requires(std::is_convertible_v<U*, T*> && !std::is_same_v<U, T>) Ptr(Ptr<U> o)
      : p_(detail::raw(o)) {}  // NOLINT: T* -> const T*, as with T*

  explicit operator bool() const { return p_ != nullptr; }
  friend bool operator==(Ptr a, Ptr b) { return a.p_ == b.p_; }
  friend bool operator==(Ptr a, std::nullptr_t) { return a.p_ == nullptr; }
  friend auto operator<=>(Ptr a, Ptr b) { return a.p_ <=> b.p_; }

  friend Ptr operator+(Ptr a, std::int64_t k) { return Ptr(a.p_ + k); }
  friend Ptr operator+(std::int64_t k, Ptr a) { return Ptr(a.p_ + k); }
  friend Ptr operator-(Ptr a, std::int64_t k) { return Ptr(a.p_ - k); }
  friend std::ptrdiff_t operator-(Ptr a, Ptr b) { return a.p_ - b.p_; }
  Ptr& operator+=(std::int64_t k) {
    p_ += k;
    return *this;
  }
  Ptr& operator-=(std::int64_t k) {
    p_ -= k;
    return *this;
  }
  Ptr& operator++() {
    ++p_;
    return *this;
  }

 private:
  friend T* detail::raw<T>(Ptr<T>);
  T* p_ = nullptr;
};

// The entry at p.
template <class T>
std::remove_cv_t<T> ld(Ptr<T> p, std::source_location where = std::source_location::current()) {
  T* q = detail::raw(p);
  detail::access(q, sizeof(T), alignof(T), detail::Access::load, where);
  return *q;
}

// *p = v.
template <class T>
void st(Ptr<T> p, const std::type_identity_t<T>& v,
        std::source_location where = std::source_location::current()) {
  static_assert(!std::is_const_v<T>, "a store through a pointer to const");
  T* q = detail::raw(p);
  detail::access(q, sizeof(T), alignof(T), detail::Access::store, where);
  *q = v;
}

// ptr_cast<U*>(p), reinterpret_cast<U*>(p) under nvcc: the same address seen
// as another type (a Pack of V entries, the dynamic shared memory as the
// kernel's accumulator).
template <class UPtr, class T>
Ptr<std::remove_pointer_t<UPtr>> ptr_cast(Ptr<T> p) {
  using U = std::remove_pointer_t<UPtr>;
  static_assert(std::is_pointer_v<UPtr>,
                "ptr_cast<U*>: name the pointer type, as reinterpret_cast");
  static_assert(std::is_const_v<U> || !std::is_const_v<T>, "ptr_cast would drop a const");
  return Ptr<U>(reinterpret_cast<U*>(detail::raw(p)));
}

// &p->*m: member m of the struct at p, on its own.
template <class T, class M>
Ptr<std::conditional_t<std::is_const_v<T>, const M, M>> field(Ptr<T> p, M std::remove_cv_t<T>::*m) {
  return Ptr<std::conditional_t<std::is_const_v<T>, const M, M>>(&(detail::raw(p)->*m));
}

// Rows<T> (types.hpp) as a kernel receives it: the same fields, data a Ptr.
template <class T>
struct Rows {
  Ptr<T> data;
  std::int64_t rows = 0, cols = 0, stride = 0;
  Rows() = default;
  Rows(Ptr<T> d, std::int64_t r, std::int64_t c, std::int64_t s)
      : data(d), rows(r), cols(c), stride(s) {}
  explicit Rows(cuda::Rows<T> v) : data(v.data), rows(v.rows), cols(v.cols), stride(v.stride) {}
  template <class U>
  requires(std::is_convertible_v<U*, T*> && !std::is_same_v<U, T>)
      Rows(Rows<U> o)  // NOLINT: a view of T -> a view of const T
      : data(o.data), rows(o.rows), cols(o.cols), stride(o.stride) {}
};

// Whether P may be a kernel parameter: no raw pointer, which could be
// dereferenced outside ld and st. A raw device pointer or a host Rows given
// by the host converts to Ptr or Rows at the launch (launch.hpp). Class types
// other than Ptr and Rows declare `using kernel_args = void;`, a promise that
// their members are such parameters too, which tests/emu_sources_test.cpp
// checks over the sources.
template <class P>
struct is_device_view : std::false_type {};
template <class T>
struct is_device_view<Ptr<T>> : std::true_type {};
template <class T>
struct is_device_view<Rows<T>> : std::true_type {};
template <class P>
concept KernelParam = std::is_arithmetic_v<P> || std::is_enum_v<P> || is_device_view<P>::value ||
    (std::is_class_v<P>&& std::is_trivially_copyable_v<P>&& requires { typename P::kernel_args; });

}  // namespace scaleref::emu
