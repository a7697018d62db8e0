rtl/axis_packer.sv
