package dataset

import (
	"strconv"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// ShardFromEnv is the shard an array-job scheduler gives this process (--shard
// auto): a Kubernetes Indexed Job sets JOB_COMPLETION_INDEX (0-based) and the count
// comes from count (--shard-count, the Job's completions); a Slurm array sets
// SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT, with the IDs 0..N-1 (--array=0-N-1;
// count, when given, must agree). getenv is os.Getenv.
//
// Returns invalid_input naming both schedulers' variables when neither is set, or
// when what is set is not a shard.
func ShardFromEnv(getenv func(string) string, count int) (Shard, error) {
	num := func(name string) (int, error) {
		n, err := strconv.Atoi(getenv(name))
		if err != nil || n < 0 {
			return 0, darkroom.Errorf(darkroom.InvalidInput, "shard auto: %s=%q is not a number", name, getenv(name))
		}
		return n, nil
	}
	switch {
	case getenv("JOB_COMPLETION_INDEX") != "":
		i, err := num("JOB_COMPLETION_INDEX")
		if err != nil {
			return Shard{}, err
		}
		if count < 1 {
			return Shard{}, darkroom.Errorf(darkroom.InvalidInput, "shard auto: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but --shard-count is not; give the Job's completions")
		}
		s := Shard{i, count}
		return s, s.check()
	case getenv("SLURM_ARRAY_TASK_ID") != "":
		i, err := num("SLURM_ARRAY_TASK_ID")
		if err != nil {
			return Shard{}, err
		}
		if getenv("SLURM_ARRAY_TASK_COUNT") == "" {
			return Shard{}, darkroom.Errorf(darkroom.InvalidInput, "shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not")
		}
		n, err := num("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return Shard{}, err
		}
		if count > 0 && count != n {
			return Shard{}, darkroom.Errorf(darkroom.InvalidInput, "shard auto: --shard-count %d and SLURM_ARRAY_TASK_COUNT=%d differ", count, n)
		}
		s := Shard{i, n}
		if err := s.check(); err != nil {
			return Shard{}, darkroom.Errorf(darkroom.InvalidInput, "shard auto: SLURM_ARRAY_TASK_ID=%d is not below SLURM_ARRAY_TASK_COUNT=%d; number the array 0-%d", i, n, n-1)
		}
		return s, nil
	}
	return Shard{}, darkroom.Errorf(darkroom.InvalidInput, "shard auto: neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job, with --shard-count) nor SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (a Slurm array) is set; give --shard I/N")
}
