#!/bin/bash
exec python3 "$@"
