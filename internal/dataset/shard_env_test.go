package dataset

import (
	"strings"
	"testing"

	darkroom "github.com/darkroom-mcp/darkroom"
)

func TestShardFromEnv(t *testing.T) {
	for _, c := range []struct {
		name  string
		env   map[string]string
		count int
		want  Shard
		err   string // a part of the message, "" for success
	}{
		{"kubernetes", map[string]string{"JOB_COMPLETION_INDEX": "2"}, 3, Shard{2, 3}, ""},
		{"kubernetes first", map[string]string{"JOB_COMPLETION_INDEX": "0"}, 3, Shard{0, 3}, ""},
		{"kubernetes without count", map[string]string{"JOB_COMPLETION_INDEX": "0"}, 0, Shard{}, "--shard-count"},
		{"kubernetes index past count", map[string]string{"JOB_COMPLETION_INDEX": "3"}, 3, Shard{}, "3/3"},
		{"kubernetes not a number", map[string]string{"JOB_COMPLETION_INDEX": "x"}, 3, Shard{}, "not a number"},
		{"slurm", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, Shard{1, 4}, ""},
		{"slurm count agrees", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4"}, 4, Shard{1, 4}, ""},
		{"slurm count differs", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4"}, 3, Shard{}, "differ"},
		{"slurm 1-based array", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, Shard{}, "number the array 0-3"},
		{"slurm without count", map[string]string{"SLURM_ARRAY_TASK_ID": "1"}, 0, Shard{}, "SLURM_ARRAY_TASK_COUNT is not"},
		{"neither", nil, 3, Shard{}, "neither JOB_COMPLETION_INDEX"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ShardFromEnv(func(k string) string { return c.env[k] }, c.count)
			if c.err == "" {
				if err != nil || got != c.want {
					t.Fatalf("got %v, %v; want %v", got, err, c.want)
				}
				return
			}
			if err == nil || darkroom.Code(err) != darkroom.InvalidInput || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("got %v, %v; want invalid_input containing %q", got, err, c.err)
			}
			if c.name == "neither" && !strings.Contains(err.Error(), "SLURM_ARRAY_TASK_ID") {
				t.Errorf("the message names only one scheduler: %v", err)
			}
		})
	}
}
