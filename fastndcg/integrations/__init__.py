"""Other libraries: LightGBM and XGBoost objectives and metrics, Dask and Spark
evaluation, the ir_measures provider. Each module imports its library lazily."""
