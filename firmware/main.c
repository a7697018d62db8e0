/* OpenRNIC firmware: the control processor's main loop. Boot, announce the
 * firmware in FW_STATE, then serve the host's commands one at a time. */
#include "core/fw.h"

static struct fw fw;

int main(void)
{
	fw_boot(&fw);
	for (;;)
		fw_mailbox_poll(&fw);
}
