// Package process tells whether a process still runs, by its id: files named after the process
// that writes them (atomicfile's temporaries, the store's open markers) are leftovers once
// their process has ended, and only then may another process remove or act on them.
package process
