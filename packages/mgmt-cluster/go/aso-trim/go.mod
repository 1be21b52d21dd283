module local/capz-mgmt-cluster/aso-trim

go 1.25.0
