#!/bin/sh
# Stands in for the system browser (point BROWSER at it): appends each URL it is asked to open to the file
# named by RECORDING_BROWSER_LOG, and opens nothing. Copied from the adversarial pass's fakebrowser.sh.
echo "OPENED: $*" >> "$RECORDING_BROWSER_LOG"
