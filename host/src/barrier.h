/* Named memory barriers between the host CPU and the device (after rdma-core
 * util/udma_barrier.h). Every ordering point in the library uses one of these,
 * named for its purpose; nothing else issues a fence.
 *
 * Host memory shared with the device (SQ rings, CQ rings) is ordinary
 * write-back memory; BAR0 is uncached MMIO.
 */
#ifndef RNIC_BARRIER_H
#define RNIC_BARRIER_H

/* rnic_to_device_barrier: before a doorbell. Makes every store to device-
 * visible host memory (WQEs) visible to the device before any later MMIO
 * store (the doorbell) reaches it, and completes every earlier read of
 * device-written memory (CQEs) before the consumer-index doorbell. x86 keeps stores in order, also against
 * uncached MMIO stores, so only the compiler must be stopped. */
static inline void rnic_to_device_barrier(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("" ::: "memory");
#elif defined(__aarch64__)
	/* full outer-shareable barrier: also orders earlier loads of CQEs
	 * before the CQ consumer-index doorbell */
	__asm__ __volatile__("dmb osh" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* rnic_from_device_barrier: after reading an owner bit that says the device
 * wrote an entry, before reading the rest of the entry. x86 does not reorder
 * loads with loads. */
static inline void rnic_from_device_barrier(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("dmb oshld" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* rnic_wc_flush_barrier: after a store to a write-combined mapping (a
 * doorbell BAR mapped WC). Pushes the store out of the CPU's write-combining
 * buffer so it reaches the device now and before later MMIO stores, as
 * rdma-core's mmio_flush_writes does. Uncached mappings need none. */
static inline void rnic_wc_flush_barrier(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("sfence" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("dsb st" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

#endif /* RNIC_BARRIER_H */
