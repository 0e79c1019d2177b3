"""Graph passes that prepare a partition for TOSA lowering, ordered by pass_manager."""
