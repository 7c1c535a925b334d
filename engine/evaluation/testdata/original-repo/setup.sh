#!/bin/sh
echo "install the dependencies"
