enum DevServerPlaceholder {}
