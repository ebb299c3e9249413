"""What the tests share besides fixtures: fake models and servers, sample projects and repositories, and
the ways to run acode as a user does. Imported as ``tests.helpers.<module>``; fixtures stay in conftest.py."""
