/* OpenRNIC firmware: the memory functions the compiler may call for struct
 * copies and initializers (-ffreestanding still allows it). Cross build
 * only; the native build has libc's. */
#include <stddef.h>
#include <stdint.h>

void *memset(void *s, int c, size_t n);
void *memcpy(void *restrict d, const void *restrict s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);

/* Whole words, four at a time, when both ends allow: the control
 * processor takes several cycles per instruction, and struct copies and
 * zeroed command buffers are on every command's path. */
void *memset(void *s, int c, size_t n)
{
	uint8_t *p = s;

	if (((uintptr_t)p & 3) == 0) {
		uint32_t v = (uint8_t)c * 0x01010101u, *w = (uint32_t *)p;

		/* eight words a turn, then the rest by halves: a context
		 * record (22 words) in 58 instructions, 73 four at a time */
		for (; n >= 32; n -= 32, w += 8) {
			w[0] = v;
			w[1] = v;
			w[2] = v;
			w[3] = v;
			w[4] = v;
			w[5] = v;
			w[6] = v;
			w[7] = v;
		}
		if (n >= 16) {
			w[0] = v;
			w[1] = v;
			w[2] = v;
			w[3] = v;
			w += 4;
			n -= 16;
		}
		if (n >= 8) {
			w[0] = v;
			w[1] = v;
			w += 2;
			n -= 8;
		}
		if (n >= 4) {
			*w++ = v;
			n -= 4;
		}
		p = (uint8_t *)w;
	}
	while (n--)
		*p++ = (uint8_t)c;
	return s;
}

void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
	uint8_t *dp = d;
	const uint8_t *sp = s;

	if ((((uintptr_t)dp | (uintptr_t)sp) & 3) == 0) {
		uint32_t *dw = (uint32_t *)dp;
		const uint32_t *sw = (const uint32_t *)sp;

		for (; n >= 16; n -= 16, dw += 4, sw += 4) {
			dw[0] = sw[0];
			dw[1] = sw[1];
			dw[2] = sw[2];
			dw[3] = sw[3];
		}
		for (; n >= 4; n -= 4)
			*dw++ = *sw++;
		dp = (uint8_t *)dw;
		sp = (const uint8_t *)sw;
	}
	while (n--)
		*dp++ = *sp++;
	return d;
}

void *memmove(void *d, const void *s, size_t n)
{
	uint8_t *dp = d;
	const uint8_t *sp = s;

	if (dp < sp) {
		while (n--)
			*dp++ = *sp++;
	} else {
		while (n--)
			dp[n] = sp[n];
	}
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const uint8_t *ap = a, *bp = b;

	for (; n; n--, ap++, bp++)
		if (*ap != *bp)
			return *ap < *bp ? -1 : 1;
	return 0;
}
