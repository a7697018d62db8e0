/* OpenRNIC firmware: the control processor's main loop. Boot, announce the
 * firmware in FW_STATE, then serve the host's commands one at a time. */
#include "core/fw.h"

/* fw_boot (fw_init) sets every byte of it, so crt0 need not clear it too:
 * it is most of the RAM, and clearing it twice doubled the boot time. */
static struct fw fw __attribute__((section(".noinit")));

int main(void)
{
	fw_boot(&fw);
	for (;;)
		fw_mailbox_poll(&fw);
}
