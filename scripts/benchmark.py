"""Speed benchmark (see risk_env/benchmark.py): python scripts/benchmark.py [--quick] [--json out.json]"""

from risk_env.tools.benchmark import main

if __name__ == "__main__":
    main()
