//! Large flat arrays backed by transparent huge pages where the OS allows.
//!
//! The mapping tables of a 64 GiB device span hundreds of MiB and are read at
//! random: with 4 KiB pages nearly every access also misses the TLB. Asking
//! for huge pages before the memory is first touched removes most page walks
//! (measured in `ftlsim bench`). It is only a hint: where it is refused, the
//! arrays are ordinary vectors.

/// A vector of `len` copies of `value`, hinted to use huge pages.
pub fn filled_vec<T: Copy>(len: usize, value: T) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(len);
    advise_huge(v.as_mut_ptr().cast(), len * std::mem::size_of::<T>());
    v.resize(len, value);
    v
}

#[cfg(target_os = "linux")]
fn advise_huge(ptr: *mut u8, bytes: usize) {
    const HUGE: usize = 2 << 20;
    if bytes < 4 * HUGE {
        return;
    }
    let page = 4096;
    let start = (ptr as usize).div_ceil(page) * page;
    let end = (ptr as usize + bytes) / page * page;
    if end > start {
        // SAFETY: the range lies inside an allocation this function's caller
        // owns; MADV_HUGEPAGE changes no contents and failure is harmless.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_ptr: *mut u8, _bytes: usize) {}

/// Starts loading `slice[index]` into cache without waiting for it.
#[inline(always)]
pub(crate) fn prefetch<T>(slice: &[T], index: usize) {
    debug_assert!(index < slice.len());
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetch is a hint; it never faults and the address is in bounds.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch(slice.as_ptr().add(index).cast::<i8>(), _MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, index);
}
