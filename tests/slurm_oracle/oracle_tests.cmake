# The Slurm placement oracle in ctest: `run` replays a seeded sequence of submissions and ends on a private
# Slurm 22.05 and asks nvlsim-oracle-place for the same decisions. Included from
# tests/slurm_oracle/CMakeLists.txt after the nvlsim-oracle-place target.
# Status 77 (Slurm not installed) is a skip. Each test starts 37 daemons on ports of its own; RUN_SERIAL
# keeps their start-up and the per-request round trips off a machine busy with other tests. TIMEOUT bounds a
# hung daemon: the daemons die with the test (see slurm_cluster.py). About half the operations are
# submissions; --min-decisions fails a run that compared too few of them.
function(nvlsim_slurm_oracle_test name)
  add_test(NAME slurm_oracle_${name}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run --operations 700 --min-decisions 300 ${ARGN})
  set_tests_properties(slurm_oracle_${name} PROPERTIES
    SKIP_RETURN_CODE 77
    LABELS slurm
    RUN_SERIAL TRUE
    TIMEOUT 120
    ENVIRONMENT "NVLSIM_ORACLE_PLACE=$<TARGET_FILE:nvlsim-oracle-place>")
endfunction()

nvlsim_slurm_oracle_test(per_gpu --seed 1 --policy per-gpu)
nvlsim_slurm_oracle_test(per_gpu_cpus --seed 2 --policy per-gpu --cpus-per-gpu 36)
nvlsim_slurm_oracle_test(tree --seed 3 --policy tree)
# Shard jobs (-N n --gres=shard:K), or MPS jobs, among whole-GPU jobs on trays configured with gres/shard
# or gres/mps (docs/sharing.md); shorter runs (the later --operations and --min-decisions win), about 15 s.
nvlsim_slurm_oracle_test(per_gpu_shards --seed 7 --policy per-gpu --sharing shard --operations 400
                         --min-decisions 200)
nvlsim_slurm_oracle_test(per_gpu_mps --seed 8 --policy per-gpu --sharing mps --operations 400
                         --min-decisions 200)
# The same under topology/tree (nvlsim's own topology, then the hand-written two-level one).
nvlsim_slurm_oracle_test(tree_shards --seed 9 --policy tree --sharing shard --operations 400
                         --min-decisions 200)
nvlsim_slurm_oracle_test(tree_mps --seed 10 --policy tree --sharing mps --operations 400 --min-decisions 200
                         --topology ${CMAKE_CURRENT_SOURCE_DIR}/two_level.conf)
# Slurm's start estimates (sbatch --test-only) of the jobs both refuse, against Slurm's batch rule applied to
# nvlsim's placements: this seed gives 8 of them, 5 where Slurm's batches start the job later than nvlsim's
# exact earliest end.
nvlsim_slurm_oracle_test(reservations --seed 6 --policy per-gpu --cpus-per-gpu 36 --reservations)
# How Slurm places gres/shard and gres/mps requests (docs/sharing.md): scripted scenarios on a small private
# Slurm configured with shards or MPS, each placement asserted. About 7 s.
add_test(NAME slurm_sharing_probe COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sharing_probe.py)
set_tests_properties(slurm_sharing_probe PROPERTIES
  SKIP_RETURN_CODE 77
  LABELS slurm
  RUN_SERIAL TRUE
  TIMEOUT 60)
