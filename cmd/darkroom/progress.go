package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// The progress bar of long CLI work (augment-dataset, export, augment with many
// variants): drawn on stderr when stderr is a terminal, from the same progress the
// tools send an MCP client as notifications/progress. Piped, or with --json,
// nothing extra is written.

// terminal is a writer that says whether it is a terminal; tests use it to draw the
// bar into a buffer.
type terminal interface {
	IsTerminal() bool
}

// isTerminal reports whether w is a terminal: a terminal writer that says so, or a
// character device (os.File.Stat's ModeCharDevice), as a tty is and a pipe or a
// file is not.
func isTerminal(w io.Writer) bool {
	switch t := w.(type) {
	case terminal:
		return t.IsTerminal()
	case *os.File:
		fi, err := t.Stat()
		return err == nil && fi.Mode()&os.ModeCharDevice != 0
	}
	return false
}

// progressBar redraws one line with a carriage return:
//
//	augment-dataset [=========>          ]  48/100  12.3/s  4s left
//
// done/total, the rate since this phase began (the first with the call; a phase
// ends when total or the stage changes, as an export goes from decode to render) and the time left at that
// rate. It draws at most every redrawEvery, and always the last step of a phase;
// Finish ends the line.
type progressBar struct {
	w     io.Writer
	label string
	now   func() time.Time

	mu            sync.Mutex
	drawn         bool
	start, last   time.Time
	total         float64
	stage         string
	width         int // of the last line drawn, to blank what a shorter one leaves
	lastDone      float64
	lastDrawnDone float64
}

const (
	redrawEvery = 100 * time.Millisecond
	barCells    = 20
)

func newProgressBar(w io.Writer, label string) *progressBar {
	return newProgressBarAt(w, label, time.Now)
}

// newProgressBarAt is newProgressBar on the clock now, from now().
func newProgressBarAt(w io.Writer, label string, now func() time.Time) *progressBar {
	return &progressBar{w: w, label: label, now: now, start: now()}
}

// Update is a server.ProgressFunc.
func (b *progressBar) Update(done, total float64, message string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if total <= 0 {
		return
	}
	now := b.now()
	// An export's messages are its stage ("decode", "render"); the other tools'
	// are sentences, whose numbers the bar shows itself.
	stage := ""
	if message != "" && !strings.ContainsRune(message, ' ') {
		stage = message
	}
	switch {
	case b.total == 0:
		b.total, b.stage = total, stage // the first phase began with the call
	case total != b.total || stage != b.stage || done < b.lastDone:
		b.start, b.total, b.stage = now, total, stage
	}
	b.lastDone = done
	if b.drawn && done < total && now.Sub(b.last) < redrawEvery {
		return
	}
	if b.drawn && done == b.lastDrawnDone && now.Sub(b.last) < time.Second {
		return
	}
	line := b.line(done, total, now.Sub(b.start))
	pad := ""
	if n := len(line); n < b.width {
		pad = strings.Repeat(" ", b.width-n)
	}
	fmt.Fprintf(b.w, "\r%s%s", line, pad)
	b.drawn, b.last, b.width, b.lastDrawnDone = true, now, len(line), done
}

// line is the bar's text for done of total after elapsed.
func (b *progressBar) line(done, total float64, elapsed time.Duration) string {
	frac := min(max(done/total, 0), 1)
	filled := int(frac * barCells)
	bar := strings.Repeat("=", filled)
	if filled < barCells {
		bar += ">" + strings.Repeat(" ", barCells-filled-1)
	}
	label := b.label
	if b.stage != "" {
		label += " " + b.stage
	}
	s := fmt.Sprintf("%s [%s] %*.0f/%.0f", label, bar, len(fmt.Sprintf("%.0f", total)), done, total)
	if secs := elapsed.Seconds(); secs > 0 && done > 0 {
		rate := done / secs
		s += "  " + formatRate(rate)
		if done < total {
			s += "  " + formatDuration(time.Duration((total-done)/rate*float64(time.Second))) + " left"
		}
	}
	return s
}

// formatRate is a rate per second with the digits it needs.
func formatRate(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f/s", r)
	case r >= 10:
		return fmt.Sprintf("%.1f/s", r)
	}
	return fmt.Sprintf("%.2f/s", r)
}

// formatDuration is a time left as people read it: 7s, 2m05s, 1h02m.
func formatDuration(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh%02dm", h, m)
	case m > 0:
		return fmt.Sprintf("%dm%02ds", m, s)
	}
	return fmt.Sprintf("%ds", s)
}

// Finish ends the bar's line, if one was drawn, so what follows starts on its own.
func (b *progressBar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprintln(b.w)
		b.drawn = false
	}
}
