# MLX environment for backend {{backend}} with {{ranks}} ranks, as mlx.launch would export it.
# Run each rank's block in the shell that starts the program on that host: MLX_RANK differs per
# rank, and each host needs its own copy of the files the blocks write.
