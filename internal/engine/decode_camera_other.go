//go:build !unix

package engine

import "os/exec"

// killGroup leaves exec's default: the process alone is killed.
func killGroup(*exec.Cmd) {}
