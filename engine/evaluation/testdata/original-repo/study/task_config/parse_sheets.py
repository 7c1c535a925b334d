import openpyxl
