# The Slurm placement oracle in ctest: `run` replays a seeded sequence of submissions, ends and tray outages on
# a private Slurm and asks nvlsim-oracle-place for the same decisions (docs/policies.md, "Checked against
# Slurm"). Included from tests/slurm_oracle/CMakeLists.txt after the nvlsim-oracle-place target.
# Status 77 (the Slurm asked for cannot run here) is a skip; with CI=true the harness fails instead. Each
# test starts its daemons on ports of its own; RUN_SERIAL keeps their start-up and the per-request round
# trips (salloc --immediate waits 2 s) off a machine busy with other tests. TIMEOUT bounds a hung daemon: the
# daemons die with the test (see slurm_cluster.py). About half the operations are submissions;
# --min-decisions fails a run that compared too few of them. The runs are short: the 1,000-decision runs on
# fresh seeds that docs/policies.md reports are made by hand.

# Slurm 24.11 runs from a Debian 13 root that slurm_root.py makes once (about a minute) and caches outside
# the clone; every 24.11 test needs it made first.
add_test(NAME slurm_root_24_11 COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/slurm_root.py ensure)
set_tests_properties(slurm_root_24_11 PROPERTIES
  SKIP_RETURN_CODE 77
  LABELS slurm
  TIMEOUT 1500
  FIXTURES_SETUP slurm_24_11)

# The later --operations and --min-decisions of ARGN win: block runs, on 4 racks, are shorter.
function(nvlsim_slurm_oracle_test name version)
  add_test(NAME slurm_oracle_${name}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run --slurm ${version} --operations 400 --min-decisions 150 ${ARGN})
  set_tests_properties(slurm_oracle_${name} PROPERTIES
    SKIP_RETURN_CODE 77
    LABELS slurm
    RUN_SERIAL TRUE
    TIMEOUT 240
    ENVIRONMENT "NVLSIM_ORACLE_PLACE=$<TARGET_FILE:nvlsim-oracle-place>;NVLSIM_BINARY=$<TARGET_FILE:nvlsim>")
  if(version STREQUAL "24.11")
    set_tests_properties(slurm_oracle_${name} PROPERTIES FIXTURES_REQUIRED slurm_24_11)
  endif()
endfunction()

# Slurm 24.11, what GB200 sites run: every policy, per decision and in a closed loop (which also replays the
# jobs Slurm started through `nvlsim run`), with and without a CPU share, block and sub-block with trays
# going DOWN or DRAIN and back.
nvlsim_slurm_oracle_test(per_gpu_24_11 24.11 --seed 1 --policy per-gpu)
nvlsim_slurm_oracle_test(per_gpu_cpus_closed_24_11 24.11 --seed 2 --policy per-gpu --cpus-per-gpu 36
                         --mode closed-loop --shape auto)
nvlsim_slurm_oracle_test(tree_closed_24_11 24.11 --seed 3 --policy tree --mode closed-loop --shape auto)
nvlsim_slurm_oracle_test(tree_two_level_cpus_24_11 24.11 --seed 4 --policy tree --cpus-per-gpu 36
                         --topology ${CMAKE_CURRENT_SOURCE_DIR}/two_level.conf)
set(short --operations 250 --min-decisions 100)
nvlsim_slurm_oracle_test(block_24_11 24.11 --seed 5 --policy block --failures 0.05 ${short})
nvlsim_slurm_oracle_test(block_cpus_closed_24_11 24.11 --seed 6 --policy block --cpus-per-gpu 36 --failures 0.05
                         --mode closed-loop --shape auto ${short})
nvlsim_slurm_oracle_test(sub_block_24_11 24.11 --seed 7 --policy sub-block --failures 0.05 ${short})
nvlsim_slurm_oracle_test(sub_block_closed_24_11 24.11 --seed 8 --policy sub-block --failures 0.05
                         --mode closed-loop --shape auto ${short})

# Slurm 22.05, Debian 12's: per-gpu and tree with a CPU share, in a closed loop (the share jobs and the
# reservation below run without one).
nvlsim_slurm_oracle_test(per_gpu_cpus_closed_22_05 22.05 --seed 12 --policy per-gpu --cpus-per-gpu 36
                         --mode closed-loop --shape auto)
nvlsim_slurm_oracle_test(tree_cpus_closed_22_05 22.05 --seed 13 --policy tree --cpus-per-gpu 36
                         --mode closed-loop --shape auto)
# Shard jobs (-N n --gres=shard:K), or MPS jobs, among whole-GPU jobs on trays configured with gres/shard
# or gres/mps (docs/sharing.md); Slurm 22.05 only (24.11's scontrol gives no GPU index for shares).
nvlsim_slurm_oracle_test(per_gpu_shards_22_05 22.05 --seed 17 --policy per-gpu --sharing shard)
nvlsim_slurm_oracle_test(per_gpu_mps_22_05 22.05 --seed 18 --policy per-gpu --sharing mps)
nvlsim_slurm_oracle_test(tree_mps_22_05 22.05 --seed 20 --policy tree --sharing mps
                         --topology ${CMAKE_CURRENT_SOURCE_DIR}/two_level.conf)
# Slurm's start estimates (sbatch --test-only) of the jobs both refuse, against Slurm's batch rule applied to
# nvlsim's placements.
nvlsim_slurm_oracle_test(reservations_22_05 22.05 --seed 6 --policy per-gpu --cpus-per-gpu 36 --reservations)

# NVIDIA's block-scheduling examples on Slurm 24.11 (tests/data/block_examples.json): Slurm's answers as
# recorded, and nvlsim's.
add_test(NAME slurm_block_examples COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/block_examples.py)
set_tests_properties(slurm_block_examples PROPERTIES
  SKIP_RETURN_CODE 77
  LABELS slurm
  RUN_SERIAL TRUE
  TIMEOUT 300
  FIXTURES_REQUIRED slurm_24_11
  ENVIRONMENT "NVLSIM_ORACLE_PLACE=$<TARGET_FILE:nvlsim-oracle-place>")

# How Slurm 22.05 places gres/shard and gres/mps requests (docs/sharing.md): scripted scenarios on a small
# private Slurm configured with shards or MPS, each placement asserted. About 7 s.
add_test(NAME slurm_sharing_probe COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sharing_probe.py)
set_tests_properties(slurm_sharing_probe PROPERTIES
  SKIP_RETURN_CODE 77
  LABELS slurm
  RUN_SERIAL TRUE
  TIMEOUT 60)
