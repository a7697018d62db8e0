/* OpenRNIC firmware: the control processor's main loop. Boot, announce the
 * firmware in FW_STATE, then serve the host's commands one at a time. */
#include "core/fw.h"

/* Not cleared by crt0: fw_boot (fw_init) clears what must start at zero and
 * leaves the QP attributes, most of the RAM, to CREATE_QP. */
static struct fw fw __attribute__((section(".noinit")));

int main(void)
{
	fw_boot(&fw);
	for (;;) {
		/* every data-path event first: a command then sees true QP states */
		while (fw_event_poll(&fw))
			;
		/* a window request holds its QP's send engine: serve it before
		 * a command (the engine lets context writes pass meanwhile) */
		fw_mw_poll(&fw);
		fw_mailbox_poll(&fw);
	}
}
