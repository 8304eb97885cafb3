fn main() {
    println!("checkpoint-playground: headless runner (in progress)");
}
