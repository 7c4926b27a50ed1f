import dashboard.ingest
def test_probe():
    import dashboard, dashboard.store
    print(dashboard.__file__, dashboard.__path__, dashboard.ingest.__file__)
