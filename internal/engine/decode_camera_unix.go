//go:build unix

package engine

import (
	"os/exec"
	"syscall"
)

// killGroup makes cmd the leader of its own process group and kills the whole
// group when cmd's context ends, so a decoder's children die with it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
